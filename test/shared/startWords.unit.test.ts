// The Start confirmation's sentence follows the agent's settings: a copy only when the snapshot mode
// makes one, the start point when one is set, and the stop point.
import { describe, expect, it } from 'vitest';
import { startSentence } from '../../shared/startWords';

describe('startSentence', () => {
  it('promises a copy only in snapshot mode "initial"', () => {
    expect(startSentence({ snapshotMode: 'initial' }, 3)).toBe(
      'Start the pipeline? It copies whichever of its 3 tables are not copied yet, then reads their changes.',
    );
    expect(startSentence(null, 1)).toContain('It copies whichever of its 1 table');
    expect(startSentence({ snapshotMode: 'never' }, 2)).toBe(
      'Start the pipeline? Its 2 tables not started yet begin at the current position, without a copy, then their changes are read.',
    );
    expect(startSentence({ snapshotMode: 'when-needed' }, 2)).toContain(
      'a table whose position is lost is copied again',
    );
  });

  it('names the start and the stop points', () => {
    expect(startSentence({ snapshotMode: 'never', startAt: '2026-12-01 08:00:00', stopAt: '1207' }, 2)).toBe(
      'Start the pipeline? Its 2 tables not started yet begin at 2026-12-01 08:00:00, without a copy, then their changes are read. It stops by itself once every table has read up to 1207.',
    );
  });
});
