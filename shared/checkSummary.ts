// Check results as a DBA reads them: each check by its name, failures first, the checks that could not
// run counted apart and their cause said once, and a headline that cannot say "nothing failed" about
// a pipeline that has no tables yet.
import type { CheckResult } from './controlApi';

/** The name of each check the agents run; an unknown id reads as itself. */
const TITLES: Record<string, string> = {
  'credentials-set': 'Host credentials stored',
  'configuration-set': 'Agent settings stored',
  'host-reachable': 'Host reachable',
  names: 'Names',
  connection: 'Connection',
  tls: 'TLS',
  'schemas-catalog': 'Schemas catalogue',
  'sync-schema': 'SYNC schema',
  'entity-tables': 'Tables exist',
  'table-permissions': 'Table permissions',
  'view-change-tracking': 'VIEW CHANGE TRACKING',
  'change-tracking-database': 'Change Tracking on the database',
  'change-retention': 'Change retention',
  'snapshot-isolation': 'Snapshot isolation',
  'change-tracking-tables': 'Change Tracking on the tables',
  'primary-keys': 'Primary keys',
  'column-types': 'Column types',
  'user-profile': 'User profile',
  'permission-read-source': 'Read the source',
  'permission-create-library': 'Create the sync library',
  'permission-create-files': 'Create files in the sync library',
  'permission-sync-files': 'Write the checkpoint table',
  'permission-chgjrn': 'Change the journal (CHGJRN)',
  'permission-dspjrn': 'Read journals (DSPJRN)',
  'permission-chgpf': 'Change files (CHGPF)',
  'permission-dltf': 'Delete files (DLTF)',
  journaling: 'Journaling',
  'journal-attributes': 'Journal attributes',
  'journal-detected': 'Journal detected',
  'sync-library': 'Sync library',
  'row-identification': 'Row identification',
  members: 'Members',
  'target-writable': 'Target writable',
};

export const checkTitle = (id: string): string => TITLES[id] ?? id;

const RANK: Record<CheckResult['status'], number> = { failed: 0, unchecked: 1, warning: 2, passed: 3 };

/** Failures first, then what could not be checked, warnings, passes; otherwise as the agent ran them. */
export const checksInOrder = (checks: readonly CheckResult[]): CheckResult[] =>
  checks
    .map((check, i) => ({ check, i }))
    .sort((a, b) => RANK[a.check.status] - RANK[b.check.status] || a.i - b.i)
    .map((x) => x.check);

/** The checks that could not run, one entry per cause with the checks it stopped. */
export function uncheckedCauses(
  checks: readonly CheckResult[],
): { why: string; remedy: string | null; ids: string[] }[] {
  const causes = new Map<string, { why: string; remedy: string | null; ids: string[] }>();
  for (const c of checks) {
    if (c.status !== 'unchecked') continue;
    const cause = causes.get(c.message) ?? { why: c.message, remedy: c.remedy, ids: [] };
    cause.ids.push(c.id);
    causes.set(c.message, cause);
  }
  return [...causes.values()];
}

/** The headline: how many failed, could not run, or warn; "no tables" said before "nothing failed". */
export function checksHeadline(checks: readonly CheckResult[], tables: number | null): string {
  const of = (status: CheckResult['status']) => checks.filter((c) => c.status === status).length;
  const [failed, unchecked, warnings] = [of('failed'), of('unchecked'), of('warning')];
  const parts = [
    failed ? `${failed} check${failed === 1 ? '' : 's'} failed` : null,
    unchecked ? `${unchecked} could not run` : null,
    warnings ? `${warnings} warning${warnings === 1 ? '' : 's'}` : null,
  ].filter(Boolean);
  const said = parts.length ? `${parts.join(', ')}.` : 'Every check passed.';
  return tables === 0 ? `No tables chosen yet: choose the tables to replicate. ${said}` : said;
}
