// What every target with a history mode shares (docs/shaping.md, "History"): the name of the index
// that keeps one current version per key, and the columns two versions are compared by.
import { createHash } from 'node:crypto';
import type { ColumnShape } from './source';
import type { TargetTable } from './target';

/** The prefix of the runner's current-version indexes: a name no entity's table may take. */
export const OPEN_INDEX_PREFIX = 'cdc_open_';

/**
 * The unique index over a history table's key where `to` is null. Named from a digest of the table's
 * name, so it fits any target's identifier length and two tables' indexes never meet.
 */
export const openIndexName = (t: TargetTable): string =>
  `${OPEN_INDEX_PREFIX}${createHash('sha256')
    .update(`${t.schema ?? ''}.${t.name}`)
    .digest('hex')
    .slice(0, 20)}`;

/**
 * The columns a new version is told from the current one by: the row's own values, not the key and
 * not the runner's (provenance, valid-from and -to). A row written again with the same values (a copy
 * overlapping the stream, a kept row retried) opens no version.
 */
export const comparedColumns = (t: TargetTable): ColumnShape[] =>
  t.columns.filter((c) => !c.provenance && !t.key.includes(c.name));

/** The columns a version is written with: all but valid-from and -to, which the target sets. */
export const writtenColumns = (t: TargetTable): ColumnShape[] =>
  t.columns.filter((c) => c.name !== t.history?.from && c.name !== t.history?.to);
