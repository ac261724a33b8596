// The gauge's words, rendered as the screen renders them: Change Tracking's folding said where rows wait,
// and no time-left estimate while nothing reads (a paused pipeline's last rate says nothing of when it ends).
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { AgentState } from '../../../shared/controlApi';
import { BacklogGauge } from '../../../renderer/screens/BacklogGauge';

const FOLDING = 'Change Tracking folds several statements on one row into one change';

/** The gauge's sentence as a DBA reads it, tags left out. */
function words(
  point: { rowsToRead: number; versionsBehind: number | null; measured?: number },
  state?: AgentState,
) {
  const backlog = {
    agentId: 'src',
    unavailableReason: null,
    history: [],
    current: {
      at: '2026-12-02T10:00:00.000Z',
      rowsToRead: point.rowsToRead,
      minutesLeft: point.versionsBehind === null ? 3 : null,
      measuredMinutesLeft: point.measured ?? null,
      versionsBehind: point.versionsBehind,
    },
  };
  const html = renderToStaticMarkup(<BacklogGauge backlog={backlog} state={state} />);
  return html.replace(/<figure[\s\S]*?<\/figure>/, '').replace(/<[^>]+>/g, '');
}

describe('the backlog gauge', () => {
  it('says Change Tracking folds statements when a change-tracking source has rows waiting', () => {
    expect(words({ rowsToRead: 618, versionsBehind: 900 }, 'running')).toContain(FOLDING);
    // Caught up, or a journal's rows (each entry is a change of its own): no such note.
    expect(words({ rowsToRead: 0, versionsBehind: 4 }, 'running')).not.toContain(FOLDING);
    expect(words({ rowsToRead: 618, versionsBehind: null }, 'running')).not.toContain(FOLDING);
  });

  it('gives no time left while paused or stopped, and says what would move the rows', () => {
    const running = words({ rowsToRead: 30, versionsBehind: null, measured: 0.001 }, 'running');
    expect(running).toContain('about 3.0 minutes left');
    expect(running).toContain('under a second at the measured rate');
    const paused = words({ rowsToRead: 30, versionsBehind: null, measured: 0.001 }, 'paused');
    expect(paused).toContain('30 rows waiting (behind) · nothing is read until Resume');
    expect(paused).not.toMatch(/left|measured rate/);
    expect(words({ rowsToRead: 30, versionsBehind: null }, 'stopped')).toContain(
      'nothing is read until Start',
    );
    // Nothing waits: nothing to say about reading.
    expect(words({ rowsToRead: 0, versionsBehind: null }, 'paused')).not.toContain('nothing is read');
  });
});
