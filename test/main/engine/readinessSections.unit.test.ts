// The readiness report says what leaves the source, per table (docs/shaping.md): the columns, each
// mask and target name, the rows the filter lets through and skipped deletes, and the provenance
// columns every table gets — so a change board reads what a copy of production will hold. And how
// fresh the target was kept: the last batch's latency by part, and p50/p99 per window.
import { describe, expect, it } from 'vitest';
import { readinessReportHtml } from '../../../main/engine/readinessReport';
import { entitySchema } from '../../../shared/controlApi';
import type { ReadinessFacts } from '../../../main/engine/readinessReport';

const agent = {
  id: 'sales',
  pipelineId: 'p',
  name: 'Sales',
  type: 'change-tracking' as const,
  role: 'source' as const,
  state: 'configured' as const,
  failureReason: null,
  hostCredentials: { maskSalt: null, maskSaltSet: true },
  configuration: {},
  createdAt: '2026-12-02T00:00:00.000Z',
  updatedAt: '2026-12-02T00:00:00.000Z',
};

const html = (entities: unknown[], provenance = {}, freshness: ReadinessFacts['freshness'] = null) =>
  readinessReportHtml({
    pipeline: { id: 'p', name: 'P' },
    agent,
    agentTypeTitle: 'Change tracking, SQL Server',
    endpoint: null,
    target: 'the default SQLite file',
    checks: [],
    tables: [],
    entities: entities.map((e) => entitySchema.parse(e)),
    provenance,
    freshness,
    madeAt: '2026-12-02T00:00:00.000Z',
    versions: {},
  });

describe('what leaves the source, in the readiness report', () => {
  it('says per table its columns, masks, names and rows, and the provenance columns added', () => {
    const page = html(
      [
        {
          source: { schema: 'dbo', table: 'Customers' },
          target: { table: 'customers' },
          columns: ['Email', 'Country'],
          columnShaping: { Email: { mask: { kind: 'hash' } }, Country: { targetName: 'country_code' } },
          rowFilter: "Country in ('CH', 'DE')",
          skipOperations: ['delete'],
        },
        { source: { schema: 'dbo', table: 'Orders' }, target: { table: 'orders' } },
        {
          source: { schema: 'dbo', table: 'Prices' },
          target: { table: 'prices' },
          tableMode: { kind: 'history' },
        },
      ],
      { operation: 'cdc_op' },
    );
    const section = page.slice(page.indexOf('<h2>What leaves the source</h2>'));
    expect(section).toContain('Every table also gets the provenance columns cdc_op (operation).');
    const rows = section.match(/<tr><th scope="row">[\s\S]*?<\/tr>/g) ?? [];
    const text = rows.map((r) =>
      r
        .replace(/<[^>]+>/g, '|')
        .replace(/\|+/g, '|')
        .replace(/\s+/g, ' '),
    );
    expect(text).toEqual([
      '|dbo.Customers|Email, Country and the key| |Email: hashed (HMAC-SHA-256 with the salt)|Country as country_code|only where Country in (&#39;CH&#39;, &#39;DE&#39;); the source&#39;s deletes skipped|',
      '|dbo.Orders|every column| |none: values as they are|–|every row|',
      '|dbo.Prices|every column| |none: values as they are|–|every row; every version kept, valid from cdc_valid_from to cdc_valid_to (null while current)|',
    ]);
  });

  it('refuses a table mode whose two columns would be one, naming the field', () => {
    const parsed = entitySchema.safeParse({
      source: { schema: 'dbo', table: 'Prices' },
      target: { table: 'prices' },
      tableMode: { kind: 'history', validFromColumn: 'Valid', validToColumn: 'VALID' },
    });
    expect(parsed.error?.issues[0]).toMatchObject({
      path: ['tableMode', 'validToColumn'],
      message: "VALID is the mode's other column too: its two columns need two names",
    });
  });

  it('leaves the section out of a pipeline without tables', () => {
    expect(html([])).not.toContain('What leaves the source');
  });
});

describe('freshness, in the readiness report', () => {
  const none = { batches: 0, p50Seconds: null, p99Seconds: null };
  const section = (page: string) => page.slice(page.indexOf('<h2>Freshness</h2>'));

  it('says the split of the last batch and p50/p99 per window, as Status does', () => {
    const page = html(
      [],
      {},
      {
        latency: { sourceSeconds: 0.8, engineSeconds: 0.05, targetSeconds: 0.35 },
        windows: {
          minute: { batches: 3, p50Seconds: 1.1, p99Seconds: 2 },
          hour: { batches: 120, p50Seconds: 0.9, p99Seconds: 4.2 },
          day: none,
        },
      },
    );
    const text = section(page)
      .replace(/<[^>]+>/g, '|')
      .replace(/\|+/g, '|');
    expect(text).toContain(
      'The last batch took 1.2 s from its commit at the source to its commit at the target: 800 ms at the source (commit to read), 50 ms in the engine (read to apply), 350 ms at the target (apply to commit).',
    );
    expect(text).toContain('|Last minute|p50 1.1 s, p99 2.0 s (3 batches)|');
    expect(text).toContain('|Last hour|p50 900 ms, p99 4.2 s (120 batches)|');
    expect(text).toContain('|Last day|no batch applied|');
  });

  it('says no latency was measured before a batch was applied, never a figure of 0', () => {
    for (const freshness of [null, { latency: null, windows: { minute: none, hour: none, day: none } }]) {
      const text = section(html([], {}, freshness));
      expect(text).toContain('No batch applied since the engine started, so no latency was measured yet');
      expect(text).not.toContain('p50');
    }
  });
});
