// A (re)connect: the source and target opened, the target's checkpoint read first (it says which
// tables stopped, and those are not described), resumed tables put back, the source's tables
// described, and each table's fate at start decided — keyless without a key chosen, gone at the
// source, refused to the agent, or columns changed while stopped — before the target's tables are
// prepared and the copies in progress taken up from their cursors.
import type { DroppedColumns } from '../../shared/agents/common';
import { tableKey } from '../agents/source';
import type { TargetTable } from '../agents/target';
import { parseStored } from './copies';
import { atTarget, PermanentFailure } from './failures';
import type { RunContext } from './runContext';
import { policyFor, reconcile } from './shapeChanges';
import { dropAtTarget, stopTable, suspendTable } from './tableStops';
import { shapedSource } from './shaping/shapedSource';
import { SHAPING_CHANGED } from '../../shared/shaping';
import { sameSourceTable, shapeOf, targetTableOf } from './targetTables';

export async function connect(run: RunContext): Promise<void> {
  if (run.source && run.target && !run.reshaped) return;
  run.reshaped = false;
  if (!run.source) run.sourceCaughtUp = false;
  run.source ??= shapedSource(await run.o.openSource(), () => run.entities, run.o.maskSalt, run.o.provenance);
  if (!run.target) {
    run.target = await atTarget(run.o.openTarget());
    run.targetDescription = run.target.description;
  }
  const { source, target } = run;
  // Kept past a disconnect: a reconnect failing with the same driver's error is sorted alike.
  run.classifiers = [source.classifyError, target.classifyError].flatMap((c) => (c ? [c] : []));
  // The checkpoint table first: it says which tables stopped, and those are not described.
  await atTarget(target.prepare([]));
  let stored = parseStored(await atTarget(target.loadCheckpoint()));
  const resumed = [...run.resuming].flatMap((t) => {
    const from = stored.stopped.get(t)?.resumeFrom;
    return from === undefined ? [] : [[t, from] as const];
  });
  run.resuming.clear();
  if (resumed.length > 0) {
    await atTarget(target.apply([], Object.fromEntries(resumed)));
    stored = parseStored(await atTarget(target.loadCheckpoint()));
    for (const [table] of resumed)
      run.emit({ kind: 'table-resumed', table, position: stored.positions[table] ?? null });
  }
  run.stopped = new Map([...stored.stopped].filter(([t]) => !run.takingUp.has(t)));
  // The new shaping is in force from here: the tables it changed are copied again under it.
  for (const table of run.reshapedCopies)
    if (!run.stopped.has(table)) run.copies.request(table, 'copy', SHAPING_CHANGED);
  run.reshapedCopies.clear();
  // One list for the whole connect: a re-snapshot asked meanwhile sets `reshaped` for the next one.
  const reading = run.reading();
  const shapes = await source.describe(reading.map((e) => e.source));
  const twice = sameSourceTable(reading, shapes);
  if (twice) throw new PermanentFailure(twice);
  // A table whose rows its entity does not identify (a keyless file, no key chosen) waits alone.
  for (const shape of shapes.filter((s) => s.cannotKey !== undefined)) {
    const reason = shape.cannotKey ?? '';
    if (run.stopsPipeline) throw new PermanentFailure(reason);
    await suspendTable(run, stored, tableKey(shape.ref), reason, {
      remedy: 'choose how its rows are identified, then copy it (re-snapshot)',
    });
  }
  // A shaping that does not fit its table (docs/shaping.md): that table waits alone, no row unshaped.
  for (const shape of shapes.filter((s) => s.cannotKey === undefined && s.cannotShape !== undefined)) {
    const reason = shape.cannotShape ?? '';
    if (run.stopsPipeline) throw new PermanentFailure(reason);
    await suspendTable(run, stored, tableKey(shape.ref), reason, {
      remedy: 'correct the table’s shaping (its masks, target names or row filter), then resume it',
    });
  }
  // A table that keeps deleted rows flagged, on a target that cannot (a stream): it waits alone.
  if (!target.softDeletes)
    for (const shape of shapes.filter((s) => s.softDelete && s.cannotShape === undefined)) {
      const reason = `${run.targetDescription} cannot keep deleted rows flagged (a stream's consumers apply deletes themselves)`;
      if (run.stopsPipeline) throw new PermanentFailure(reason);
      await suspendTable(run, stored, tableKey(shape.ref), reason, {
        remedy: 'set the table’s mode back to live, then resume it',
      });
    }
  // A table keeping every version, on a target that cannot (a stream, whose events are each a
  // version already): it waits alone.
  if (!target.keepsHistory)
    for (const shape of shapes.filter((s) => s.history && s.cannotShape === undefined)) {
      const reason = `${run.targetDescription} cannot keep a row per version: a stream's events are each a version already, its consumers keep the history they need`;
      if (run.stopsPipeline) throw new PermanentFailure(reason);
      await suspendTable(run, stored, tableKey(shape.ref), reason, {
        remedy: 'set the table’s mode back to live, then resume it',
      });
    }
  // A shard's member on a target without tables of its own (a stream) waits alone too.
  if (!target.shards)
    for (const e of reading.filter((x) => x.shard !== undefined)) {
      const reason = `${run.targetDescription} has no tables to share: a shard writes several source tables into one target table`;
      if (run.stopsPipeline) throw new PermanentFailure(reason);
      await suspendTable(run, stored, tableKey(e.source), reason, {
        remedy: 'leave the shard out of the entity, then resume it',
      });
    }
  // A table gone while the pipeline was stopped stops alone; one never replicated fails the start.
  // One the agent may no longer read (authority revoked) is suspended at its position instead.
  const missing = reading.filter(
    (e) =>
      (stored.positions[tableKey(e.source)] !== undefined || run.takingUp.has(tableKey(e.source))) &&
      !shapeOf(shapes, e.source),
  );
  const refusedAtStart =
    missing.length > 0 && source.refusedAmong ? await source.refusedAmong(missing.map((e) => e.source)) : [];
  if (refusedAtStart[0] && run.stopsPipeline) throw new PermanentFailure(refusedAtStart[0].reason);
  for (const e of missing) {
    const key = tableKey(e.source);
    const refused = refusedAtStart.find((r) => r.table === key);
    if (refused) {
      await suspendTable(run, stored, key, refused.reason);
      continue;
    }
    await stopTable(
      run,
      stored,
      key,
      `${key} no longer exists at the source (dropped or renamed), or the login cannot see it`,
    );
    await dropAtTarget(run, key, {
      source: key,
      schema: e.target.schema,
      name: e.target.table,
      columns: [],
      key: [],
    });
  }
  const described = reading
    .filter((e) => !run.stopped.has(tableKey(e.source)))
    .map((e) => ({ entity: e, table: targetTableOf(e, shapes, run.target?.foldName) }));
  run.tables = described.map((d) => d.table);
  // The members of a shard write one table: each must bring the columns the first one does.
  for (const { table } of described) {
    if (!table.shard) continue;
    const first = run.tables.find((t) => t.shard && t.name === table.name && t.schema === table.schema);
    if (!first || first === table) continue;
    const columnsOf = (t: TargetTable) => t.columns.map((c) => `${c.name} ${c.sourceType}`).join(', ');
    if (columnsOf(first) === columnsOf(table)) continue;
    const reason = `its columns at the target (${columnsOf(table)}) are not those of ${first.source}, the first member of the shard writing ${table.name} (${columnsOf(first)})`;
    if (run.stopsPipeline) throw new PermanentFailure(reason);
    await suspendTable(run, stored, table.source, reason, {
      remedy:
        'give the members the same columns (the entity’s columns, masks and target names), then resume it',
    });
    run.tables = run.tables.filter((t) => t !== table);
  }
  // Columns changed at the source while the pipeline was stopped: as each table's policy says.
  const dropped = new Map<string, DroppedColumns | undefined>();
  for (const { entity, table } of described) {
    // Only a table whose policy is not propagate needs the target's columns (one query each).
    if ((entity.schemaChanges ?? run.o.schemaChanges ?? 'propagate') === 'propagate') continue;
    const now = await atTarget(target.columnsOf?.(table) ?? Promise.resolve(null));
    if (!now) continue;
    const added = table.columns.filter((c) => !now.includes(c.name)).map((c) => c.name);
    const gone = now.filter((n) => !table.columns.some((c) => c.name === n));
    const verdict = await policyFor(run, stored, entity, table, { added, gone });
    if (!verdict) continue;
    run.tables = run.tables.map((t) => (t.source === table.source ? verdict.table : t));
    dropped.set(table.source, verdict.dropped);
  }
  await atTarget(target.prepare(run.tables));
  for (const t of run.tables)
    await reconcile(
      run,
      t,
      'the source table’s columns differ from the target’s',
      [],
      [],
      dropped.get(t.source),
    );
  run.copies.resume(stored);
}
