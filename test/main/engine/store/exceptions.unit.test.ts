// The exceptions store keeps production rows, so it is bounded and exact: a row replayed after a crash
// is kept once, the newest keepExceptions of a pipeline stay and none older than keepExceptionDays,
// a retry's outcome removes or updates, the rows go with their agent, and masking hides every value.
import { describe, expect, it } from 'vitest';
import { openDb } from '../../../../main/engine/store/db';
import { createRepo } from '../../../../main/engine/store/repo';
import {
  createExceptionsStore,
  maskException,
  type ExceptionInput,
} from '../../../../main/engine/store/exceptions';
import { engineSettingsSchema } from '../../../../shared/engineSettings';

const AT = '2026-11-27T10:00:00.000Z';

function store(settings: { keepExceptions?: number; keepExceptionDays?: number } = {}) {
  const db = openDb(':memory:');
  const repo = createRepo(db);
  repo.createPipeline({ id: 'p', name: 'p' }, AT);
  repo.createAgent({ pipelineId: 'p', id: 'a', name: 'a', type: 'change-tracking', role: 'source' }, AT);
  return { repo, kept: createExceptionsStore(db, engineSettingsSchema.parse(settings)) };
}

const row = (id: number, position = String(id)): ExceptionInput => ({
  table: 'dbo.T',
  op: 'insert',
  key: { Id: id },
  position,
  values: { Id: id, Note: { $bytes: '00ff' }, Big: { $bigint: '9007199254740993' } },
  error: 'refused',
});

describe('the exceptions store', () => {
  it('keeps a row replayed at the same position once, with its values exact', () => {
    const { kept } = store();
    expect(kept.keep('p', 'a', [row(1), row(1), row(2)], AT)).toEqual({ 'dbo.T': 2 });
    expect(kept.keep('p', 'a', [row(1, '9')], AT)).toEqual({ 'dbo.T': 3 });
    const [newest] = kept.list('p', 'a', null, 10);
    expect(newest?.values).toEqual({ Id: 1, Note: { $bytes: '00ff' }, Big: { $bigint: '9007199254740993' } });
  });

  it('is bounded by count and by age', () => {
    const { kept } = store({ keepExceptions: 100, keepExceptionDays: 1 });
    kept.keep(
      'p',
      'a',
      Array.from({ length: 650 }, (_, i) => row(i)),
      AT,
    );
    kept.prune(AT);
    expect(kept.counts('p', 'a')).toEqual({ 'dbo.T': 100 });
    expect(kept.list('p', 'a', null, 1)[0]?.key).toEqual({ Id: 649 });
    kept.prune('2026-11-29T10:00:00.000Z');
    expect(kept.counts('p', 'a')).toEqual({});
  });

  it('removes rows a retry applied, counts a refusal again, and goes with its agent', () => {
    const { repo, kept } = store();
    kept.keep('p', 'a', [row(1), row(2)], AT);
    const [two, one] = kept.list('p', 'a', null, 10);
    kept.retried('p', 'a', { applied: [one?.id ?? 0], refused: [{ id: two?.id ?? 0, error: 'again' }] }, AT);
    expect(kept.list('p', 'a', null, 10).map((e) => [e.key, e.error, e.attempts])).toEqual([
      [{ Id: 2 }, 'again', 2],
    ]);
    repo.deleteAgent('p', 'a');
    expect(kept.counts('p', 'a')).toEqual({});
  });

  it('masks every key and value for a diagnostics bundle', () => {
    const { kept } = store();
    kept.keep('p', 'a', [{ ...row(1), raw: '4040' }], AT);
    const [e] = kept.list('p', 'a', null, 1);
    if (!e) throw new Error('no row');
    expect(maskException(e)).toMatchObject({
      key: { Id: '***' },
      values: { Id: '***', Note: '***', Big: '***' },
      raw: '***',
    });
  });
});
