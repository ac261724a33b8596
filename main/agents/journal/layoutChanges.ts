// The D entries of a read ("Database file operation"): a D CG (ALTER TABLE, CHGPF: "Change file")
// means record images before it follow the file's old layout and those after it the new one, so a
// read stops before it and the runner reshapes the table first. A D DT (the file deleted), D FN (renamed)
// or D FM (moved to another library) ends that file's replication with its reason, the read cut there
// too, as an F EJ (ENDJRNPF) does; the pipeline's other files go on. Which layout the agent holds is told by the journal's end when
// it read the layout: a change at or before that end is already in it.
import { positionOf, type JournalEntryRow, type PositionOrder, type TableReading } from './assemble';
import type { JournalPosition } from './position';

export interface Screened {
  /** The entries to assemble: cut before the first layout change the agent's layout predates. */
  entries: JournalEntryRow[];
  cut: boolean;
  /** Tables whose layout changed at the cut, with the reason. */
  layoutChanged: Map<string, string>;
  /** Tables whose file is gone at the cut (deleted, renamed, moved), with the reason. */
  stopped: Map<string, string>;
  /** Tables with images of a layout the agent no longer has: copied again. */
  resnapshot: Map<string, string>;
}

export function screenFileEntries(
  entries: readonly JournalEntryRow[],
  readings: readonly TableReading[],
  layoutSince: ReadonlyMap<string, JournalPosition>,
  order: PositionOrder,
): Screened {
  const byFile = new Map(readings.map((r) => [`${r.library}/${r.file}`, r]));
  const layoutChanged = new Map<string, string>();
  const stopped = new Map<string, string>();
  const resnapshot = new Map<string, string>();
  /** The read cut before entry `i`: what comes after it waits for the runner to act. */
  const cutAt = (i: number): Screened => ({
    entries: without(entries.slice(0, i), resnapshot, byFile),
    cut: true,
    layoutChanged,
    stopped,
    resnapshot,
  });
  const pastApplied = (r: TableReading, e: JournalEntryRow) =>
    r.appliedThrough === null || order(positionOf(e), r.appliedThrough) > 0;
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i] as JournalEntryRow;
    const ended = e.code === 'F' && e.type === 'EJ';
    const r = e.code === 'D' || ended ? byFile.get(`${e.library}/${e.file}`) : undefined;
    if (!r || !pastApplied(r, e) || resnapshot.has(r.key)) continue;
    const where = `journal entry ${e.sequence} (D ${e.type}) in ${e.receiverLibrary}/${e.receiver}`;
    // ENDJRNPF: the file's later changes are in no journal, so it stops alone rather than miss them.
    if (ended) {
      stopped.set(
        r.key,
        `journaling of ${r.library}/${r.file} ended (ENDJRNPF, journal entry ${e.sequence} in ${e.receiverLibrary}/${e.receiver}): ` +
          'its changes from then on are in no journal. Journal it again (STRJRNPF … IMAGES(*BOTH)), then copy it again',
      );
      return cutAt(i);
    }
    const gone = GONE[e.type];
    if (gone) {
      stopped.set(
        r.key,
        `${r.library}/${r.file} was ${gone} at the source, journal entry ${e.sequence} in ${e.receiverLibrary}/${e.receiver}`,
      );
      return cutAt(i);
    }
    if (e.type !== 'CG') continue;
    const since = layoutSince.get(r.key);
    if (since && order(positionOf(e), since) <= 0) {
      // The layout held is already the changed one: images of the table before the change (not yet
      // applied) were written in a layout the agent never read, so the table is copied again.
      const older = entries
        .slice(0, i)
        .some((x) => x.code === 'R' && x.library === e.library && x.file === e.file && pastApplied(r, x));
      if (older)
        resnapshot.set(
          r.key,
          `the file's columns changed (ALTER TABLE or CHGPF, ${where}) before changes written under its old layout were read`,
        );
      continue;
    }
    layoutChanged.set(r.key, `the file's columns changed (ALTER TABLE or CHGPF, ${where})`);
    return cutAt(i);
  }
  return { entries: without(entries, resnapshot, byFile), cut: false, layoutChanged, stopped, resnapshot };
}

/** The D entries after which a file is no longer there under its name (IBM's QDBRPLAY list names them). */
const GONE: Partial<Record<string, string>> = {
  DT: 'deleted (DLTF or DROP TABLE, D DT)',
  FN: 'renamed (RNMOBJ or RENAME TABLE, D FN)',
  FM: 'moved to another library (MOVOBJ, D FM)',
};

/** The entries less the record entries of tables being copied again (their images are not decoded). */
function without(
  entries: readonly JournalEntryRow[],
  resnapshot: ReadonlyMap<string, string>,
  byFile: ReadonlyMap<string, TableReading>,
): JournalEntryRow[] {
  if (resnapshot.size === 0) return [...entries];
  return entries.filter((e) => {
    const r = e.code === 'R' ? byFile.get(`${e.library}/${e.file}`) : undefined;
    return !r || !resnapshot.has(r.key);
  });
}
