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

/** What each check expects of the source, for a reader who has never seen the app (the readiness report). */
const EXPECTED: Record<string, string> = {
  'credentials-set': 'The agent holds its host credentials.',
  'configuration-set': 'The agent holds its settings.',
  'host-reachable': 'The host answers on its port from the engine.',
  names: "No table or column the DBA named meets the engine's own objects or another entity's.",
  connection: 'The login signs on.',
  tls: 'The connection is encrypted with a certificate the engine trusts.',
  'schemas-catalog': 'The login reads the schemas catalogue.',
  'sync-schema': 'The SYNC schema exists, or the login may create it at Start.',
  'entity-tables': 'Every chosen table exists at the source.',
  'table-permissions': 'The login reads every chosen table and writes its checkpoint table.',
  'view-change-tracking': 'The login holds VIEW CHANGE TRACKING on every chosen table.',
  'change-tracking-database': 'Change Tracking is on for the database.',
  'change-retention': 'Change retention is long enough to outlast a pause of the pipeline.',
  'snapshot-isolation': 'Snapshot isolation is allowed, so copies read one consistent version.',
  'change-tracking-tables': 'Change Tracking is on for every chosen table.',
  'primary-keys': 'Every chosen table has a primary key.',
  'column-types': 'Every column has a type the agent decodes exactly.',
  'user-profile': 'The user profile is enabled and its password not expired.',
  'permission-read-source': 'The user profile reads every chosen file.',
  'permission-create-library': 'The user profile may create the sync library.',
  'permission-create-files': 'The user profile may create files in the sync library.',
  'permission-sync-files': 'The user profile writes the checkpoint table.',
  'permission-chgjrn': 'The user profile may run CHGJRN on the sync journal.',
  'permission-dspjrn': "The user profile may run DSPJRN on the files' journals.",
  'permission-chgpf': 'The user profile may run CHGPF.',
  'permission-dltf': 'The user profile may run DLTF in the sync library.',
  journaling: 'Every chosen file is journaled with before and after images (*BOTH).',
  'journal-attributes': 'The journals keep what the agent reads: receivers not deleted before it reads them.',
  'journal-detected': "Each file's journal is found.",
  'sync-library': "The sync library is this agent's alone and journals no source file.",
  'row-identification': 'Every chosen file identifies its rows: a primary key, a logical key or RRN.',
  members: 'Every chosen file has the members the agent reads.',
  'target-writable': 'The target accepts the tables the pipeline writes.',
};

export const checkExpected = (id: string): string => EXPECTED[id] ?? '';

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
