// When the app rings: a failure or a stop seen while watching, a lag or backlog crossing the user's
// threshold once (and again only after falling below 80 % of it), nothing for what the first reading
// found; and on the desktop, each alert as a notification whose click brings the window to the pipeline.
import { describe, expect, it } from 'vitest';
import { alertsFor, alertText, engineSilenceText, type AlertMemory } from '../../../main/app/alerts';
import { forwardPushes, type NotificationLike } from '../../../main/desktop/pushes';
import type { AgentStatus } from '../../../shared/liveFeed';
import { alertSettingsSchema, type AlertKind, type PushMessage } from '../../../shared/push';

const settings = alertSettingsSchema.parse({ lagSeconds: 300, backlogRows: 1000 });
const status = (over: Partial<AgentStatus> = {}): AgentStatus => ({
  state: 'running',
  failureReason: null,
  lagSeconds: 1,
  backlogRows: 0,
  secondsLeft: null,
  changesPerSecond: 10,
  lastBatchAt: null,
  lastFailure: null,
  ...over,
});

/** Feeds statuses in order, as the fleet does; answers the kinds each one rang. */
function ring(statuses: AgentStatus[], s = settings): AlertKind[][] {
  let before: AgentStatus | undefined;
  let memory: AlertMemory | undefined;
  return statuses.map((after) => {
    const result = alertsFor(before, after, s, memory);
    before = after;
    memory = result.memory;
    return result.kinds;
  });
}

describe('alerts', () => {
  it('rings a failure and a stop seen while watching, not what the first reading found', () => {
    expect(ring([status({ state: 'failed' }), status({ state: 'failed' })])).toEqual([[], []]);
    expect(ring([status(), status({ state: 'failed', failureReason: 'boom' })])).toEqual([[], ['failed']]);
    expect(ring([status({ state: 'paused' }), status({ state: 'stopped' })])).toEqual([[], ['stopped']]);
    expect(ring([status({ state: 'configured' }), status({ state: 'configured' })])).toEqual([[], []]);
  });

  it('rings a crossing once, and again only after the figure fell below 80 % of the threshold', () => {
    const lags = [10, 300, 900, 250, 320, 200, 301].map((lagSeconds) => status({ lagSeconds }));
    expect(ring(lags)).toEqual([[], ['lag'], [], [], [], [], ['lag']]);
    const rows = [0, 999, 1000, 5000, 700, 1000].map((backlogRows) => status({ backlogRows }));
    expect(ring(rows)).toEqual([[], [], ['backlog'], [], [], ['backlog']]);
  });

  it('rings each schema change at the source once, applied or withheld, in words', () => {
    const added = {
      at: '2026-11-27T10:00:00.000Z',
      table: 'dbo.Orders',
      reason: 'column Note added',
      withheld: false,
    };
    const withheld = {
      at: '2026-11-27T10:05:00.000Z',
      table: 'dbo.Orders',
      reason: 'column Extra added at the source left out, as the schema-change policy says',
      withheld: true,
    };
    const seen = [status(), status({ lastSchemaChange: added }), status({ lastSchemaChange: added })];
    expect(ring([...seen, status({ lastSchemaChange: withheld })])).toEqual([
      [],
      ['schema-change'],
      [],
      ['schema-change'],
    ]);
    expect(ring(seen, { ...settings, schemaChanges: false })).toEqual([[], [], []]);
    expect(
      alertText('schema-change', status({ lastSchemaChange: withheld }), settings, {
        pipelineName: 'Sales',
        engineName: 'Local',
      }),
    ).toEqual({
      title: 'Sales: dbo.Orders changed at the source, withheld',
      body: 'column Extra added at the source left out, as the schema-change policy says (on Local)',
    });
  });

  it('rings a table newly suspended, once, and says which and how many of the pipeline', () => {
    const notes = { table: 'dbo.Notes', reason: 'dbo.Notes was suspended: no such table' };
    const tags = { table: 'dbo.Tags', reason: 'dbo.Tags was suspended: permission denied' };
    const with_ = (...t: (typeof notes)[]) => status({ tableCount: 850, tablesSuspended: t });
    expect(ring([with_(), with_(notes), with_(notes), with_(notes, tags), with_(tags)])).toEqual([
      [],
      ['suspended'],
      [],
      ['suspended'],
      [],
    ]);
    // An older engine says nothing of tables: nothing rings.
    expect(ring([status(), status()])).toEqual([[], []]);
    expect(ring([with_(), with_(notes)], alertSettingsSchema.parse({ suspended: false }))).toEqual([[], []]);
    expect(
      alertText('suspended', with_(notes, tags), settings, { pipelineName: 'Orders', engineName: 'Plant 4' }),
    ).toEqual({
      title: 'Orders: dbo.Tags suspended',
      body: 'dbo.Tags was suspended: permission denied. 2 of 850 tables suspended on Plant 4; the others go on.',
    });
  });

  it('rings a warning before loss when it appears or changes, not while it holds', () => {
    const risky = (warnings: string[]) => status({ warnings });
    const receiver =
      'Journal SHOP/QSQJRN deletes each receiver it detaches … CHGJRN JRN(SHOP/QSQJRN) DLTRCV(*NO).';
    expect(ring([risky([]), risky([receiver]), risky([receiver]), risky([]), risky([receiver])])).toEqual([
      [],
      ['at-risk'],
      [],
      [],
      ['at-risk'],
    ]);
    expect(
      alertText('at-risk', risky([receiver]), settings, { pipelineName: 'Shop', engineName: 'Plant 4' }),
    ).toEqual({ title: 'Shop is at risk of losing changes', body: `${receiver} (on Plant 4)` });
  });

  it('stays silent for what the user turned off', () => {
    const off = alertSettingsSchema.parse({
      failed: false,
      stopped: false,
      atRisk: false,
      lagSeconds: null,
      backlogRows: null,
    });
    const seen = ring(
      [
        status(),
        status({ lagSeconds: 99_999, backlogRows: 1e9 }),
        status({ state: 'failed' }),
        status({ state: 'configured' }),
      ],
      off,
    );
    expect(seen.flat()).toEqual([]);
  });

  it('says what happened in words', () => {
    const where = { pipelineName: 'Orders', engineName: 'Plant 4' };
    expect(alertText('lag', status({ lagSeconds: 420 }), settings, where)).toEqual({
      title: 'Orders is 7 min 0 s behind',
      body: 'Lag over your threshold of 5 min 0 s on Plant 4.',
    });
    expect(alertText('backlog', status({ backlogRows: 1_250_000 }), settings, where).title).toBe(
      'Orders: 1,250,000 rows waiting',
    );
    expect(
      alertText('failed', status({ state: 'failed', failureReason: 'Login failed.' }), settings, where),
    ).toEqual({
      title: 'Orders failed',
      body: 'Login failed. (on Plant 4)',
    });
  });
});

describe('an engine that stops answering', () => {
  it('is told in words: what failed, for how long, and what is not known meanwhile', () => {
    expect(engineSilenceText('Plant 4', 'Cannot reach the engine at https://plant4:1717.', 60)).toEqual({
      title: 'Plant 4 is not answering',
      body: "Cannot reach the engine at https://plant4:1717. Not answering for 1 min 0 s: its pipelines' states are not known until it answers again.",
    });
  });
});

describe('desktop pushes', () => {
  it('sends every message to the window and shows each alert; a click opens its pipeline', () => {
    const sent: unknown[] = [];
    const focused: string[] = [];
    const window = {
      isDestroyed: () => false,
      isMinimized: () => true,
      restore: () => focused.push('restore'),
      show: () => focused.push('show'),
      focus: () => focused.push('focus'),
      webContents: { send: (channel: string, message: unknown) => sent.push([channel, message]) },
    };
    const shown: { options: { title: string; body: string }; click?: () => void }[] = [];
    let listener: (m: PushMessage) => void = () => undefined;
    const stop = forwardPushes(
      (l) => {
        listener = l;
        return () => (listener = () => undefined);
      },
      window,
      (options) => {
        const n: (typeof shown)[number] = { options };
        shown.push(n);
        const notification: NotificationLike = {
          on: (_event, click) => (n.click = click),
          show: () => undefined,
        };
        return notification;
      },
    );
    listener({ type: 'engine-removed', profileId: 'x' });
    const address = { profileId: 'local', pipelineId: 'orders', agentId: 'sales' };
    listener({
      type: 'alert',
      alert: {
        ...address,
        kind: 'failed',
        title: 'orders failed',
        body: 'Boom (on Local)',
        at: '2026-11-25T00:00:00Z',
      },
    });
    expect(shown.map((n) => n.options)).toEqual([{ title: 'orders failed', body: 'Boom (on Local)' }]);
    expect(sent).toHaveLength(2);
    shown[0]?.click?.();
    expect(focused).toEqual(['restore', 'show', 'focus']);
    expect(sent.at(-1)).toEqual(['push', { type: 'open-pipeline', ...address, section: 'status' }]);
    // An engine's alert: a click opens Home, where each engine shows whether it answers.
    listener({
      type: 'alert',
      alert: {
        profileId: 'plant',
        pipelineId: null,
        agentId: null,
        kind: 'unreachable',
        title: 'Plant 4 is not answering',
        body: 'Cannot reach the engine.',
        at: '2026-11-25T00:00:00Z',
      },
    });
    shown[1]?.click?.();
    expect(sent.at(-1)).toEqual(['push', { type: 'open-engine', profileId: 'plant' }]);
    stop();
  });
});
