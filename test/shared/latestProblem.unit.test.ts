// The Status section leads with the newest problem not put right since, with what to do and where.
import { describe, expect, it } from 'vitest';
import { latestProblem } from '../../shared/latestProblem';

let clock = 0;
const event = (kind: string, data: Record<string, unknown> = {}) => ({
  at: new Date(Date.UTC(2026, 10, 27, 6, 0, clock++)).toISOString(),
  kind,
  data,
});
const running = { state: 'running', failureReason: null };

describe('latest problem', () => {
  it('is none on a healthy pipeline', () => {
    expect(latestProblem(running, [event('started'), event('batch-applied', { changes: 3 })])).toBeNull();
  });

  it('says a failure with its reason and sends the DBA to Checks, until a start after it', () => {
    const failed = event('failed', { reason: 'Login failed for user cdc_agent' });
    const problem = latestProblem({ state: 'failed', failureReason: 'Login failed' }, [
      event('started'),
      failed,
    ]);
    expect(problem).toMatchObject({
      text: 'Pipeline failed: Login failed for user cdc_agent',
      section: 'checks',
      at: failed.at,
    });
    expect(latestProblem(running, [failed, event('started')])).toBeNull();
  });

  it('names a stopped table until that table is copied again, not another one', () => {
    const stopped = event('table-stopped', { table: 'dbo.Orders', reason: 'the table was dropped' });
    expect(
      latestProblem(running, [stopped, event('snapshot-done', { table: 'dbo.Customers', rows: 4 })]),
    ).toMatchObject({ section: 'tables', text: 'Replication of dbo.Orders stopped: the table was dropped' });
    expect(
      latestProblem(running, [stopped, event('snapshot-done', { table: 'dbo.Orders', rows: 4 })]),
    ).toBeNull();
  });

  it('sends a verify that found differences to Verify; a clean verify after it clears it', () => {
    const differing = event('verify-finished', {
      status: 'done',
      rowsCompared: 10,
      missing: 0,
      extra: 0,
      different: 1,
    });
    const clean = event('verify-finished', {
      status: 'done',
      rowsCompared: 10,
      missing: 0,
      extra: 0,
      different: 0,
    });
    expect(latestProblem(running, [differing])).toMatchObject({ section: 'verify' });
    expect(latestProblem(running, [differing, clean])).toBeNull();
    expect(latestProblem(running, [clean])).toBeNull();
  });

  it('says a failed agent whose failure event is no longer kept, from its state', () => {
    expect(latestProblem({ state: 'failed', failureReason: 'ENDJRNPF on SHOP.ORDERS' }, [])).toMatchObject({
      text: 'Pipeline failed: ENDJRNPF on SHOP.ORDERS',
      at: null,
    });
  });
});
