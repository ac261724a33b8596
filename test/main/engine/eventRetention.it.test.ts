// Events stay bounded: kept by count and age per pipeline, deleted with their pipeline, and a year of
// events at a busy pipeline's rate fits in a stated size.
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDb } from '../../../main/engine/store/db';
import { createRepo, PRUNE_EVERY } from '../../../main/engine/store/repo';
import { enginesStoppedAfterEach } from '../../helpers/engine';
import { engineSettingsSchema, type EngineSettings } from '../../../shared/engineSettings';

const engine = enginesStoppedAfterEach();

const DAY = 86_400_000;

function store(settings: Partial<EngineSettings> = {}) {
  const file = join(mkdtempSync(join(tmpdir(), 'cdc-events-')), 'engine.sqlite');
  const db = openDb(file);
  return { db, file, repo: createRepo(db, engineSettingsSchema.parse(settings)) };
}
const count = (db: ReturnType<typeof openDb>, pipelineId: string) =>
  (db.prepare('SELECT COUNT(*) AS n FROM events WHERE pipeline_id = ?').get(pipelineId) as { n: number }).n;

describe('events of a pipeline', () => {
  it('go with their pipeline: one created again under the same id starts with none', async () => {
    const e = await engine();
    await e.client.createPipeline({}, { id: 'orders', name: 'orders' });
    await e.client.createAgent({ pipelineId: 'orders' }, { id: 'src', type: 'journal', role: 'source' });
    await e.client.putCredentials(
      { pipelineId: 'orders', agentId: 'src' },
      {
        hostCredentials: {
          connectionName: 'as400',
          host: 'ibmi.example',
          databaseName: 'S1234567',
          username: 'CDCUSER',
          password: 'ibm-i-Pa55',
        },
      },
    );
    expect((await e.client.listEvents({ pipelineId: 'orders' })).length).toBeGreaterThan(0);
    await e.client.deletePipeline({ pipelineId: 'orders' });
    await e.client.createPipeline({}, { id: 'orders', name: 'orders' });
    expect(await e.client.listEvents({ pipelineId: 'orders' })).toEqual([]);
  });

  it('are kept by count: the newest keepEvents, give or take one pruning step', () => {
    const { db, repo } = store({ keepEvents: 500, keepEventDays: 3650 });
    repo.createPipeline({ id: 'p', name: 'p' }, new Date(0).toISOString());
    repo.createPipeline({ id: 'q', name: 'q' }, new Date(0).toISOString());
    const t0 = Date.UTC(2026, 0, 1);
    for (let i = 0; i < 2_000; i++)
      repo.addEvent('p', 'src', 'batch-applied', { i }, new Date(t0 + i * 1000).toISOString());
    repo.addEvent('q', 'src', 'started', {}, new Date(t0).toISOString());
    expect(count(db, 'p')).toBeGreaterThanOrEqual(500);
    expect(count(db, 'p')).toBeLessThan(500 + PRUNE_EVERY);
    const newest = db
      .prepare("SELECT data FROM events WHERE pipeline_id = 'p' ORDER BY id DESC LIMIT 1")
      .get() as {
      data: string;
    };
    expect(JSON.parse(newest.data)).toEqual({ i: 1_999 });
    // Another pipeline's events are not the busy one's to prune.
    expect(count(db, 'q')).toBe(1);
  });

  it('are kept by age: nothing older than keepEventDays survives a pruning', () => {
    const { db, repo } = store({ keepEvents: 1_000_000, keepEventDays: 7 });
    repo.createPipeline({ id: 'p', name: 'p' }, new Date(0).toISOString());
    const t0 = Date.UTC(2026, 0, 1);
    // One event an hour for 30 days.
    for (let h = 0; h < 30 * 24; h++)
      repo.addEvent('p', null, 'checked', {}, new Date(t0 + h * 3_600_000).toISOString());
    repo.pruneEvents(new Date(t0 + 30 * DAY).toISOString());
    const oldest = db.prepare('SELECT MIN(at) AS at FROM events').get() as { at: string };
    expect(Date.parse(oldest.at)).toBeGreaterThanOrEqual(t0 + 23 * DAY);
    expect(count(db, 'p')).toBe(7 * 24);
  });

  it('stay within 8 MiB for three busy pipelines over a year, at one event a second each', () => {
    // A busy pipeline reports a batch each poll (1 s): 31.5 million events a year. The count limit
    // (default 10,000) holds each to its newest events, so the store reaches its size within the first
    // hours and keeps it: four hours at the year's start and four at its end are written, the size checked
    // after each.
    const { db, file, repo } = store();
    const pipelines = ['a', 'b', 'c'];
    for (const p of pipelines) repo.createPipeline({ id: p, name: p }, new Date(0).toISOString());
    const t0 = Date.UTC(2026, 0, 1);
    const fourHours = (start: number) => {
      for (let s = 0; s < 3_600 * 4; s++)
        for (const p of pipelines)
          repo.addEvent(
            p,
            'src',
            'batch-applied',
            { changes: 250, inserts: 100, updates: 100, deletes: 50, position: `${start + s}`, lagMs: 1200 },
            new Date(start + s * 1000).toISOString(),
          );
    };
    fourHours(t0);
    db.pragma('wal_checkpoint(TRUNCATE)');
    const early = statSync(file).size;
    fourHours(t0 + 364 * DAY);
    db.pragma('wal_checkpoint(TRUNCATE)');
    const late = statSync(file).size;
    for (const p of pipelines) expect(count(db, p)).toBeLessThan(10_000 + PRUNE_EVERY);
    expect(late).toBeLessThan(8 * 1024 * 1024);
    // Freed pages are reused: a year on, the file has not grown by more than a few pages.
    expect(late - early).toBeLessThan(256 * 1024);
    process.stdout.write(
      `event store: ${(late / 1024 / 1024).toFixed(1)} MiB for 3 pipelines at the count limit\n`,
    );
  });
});
