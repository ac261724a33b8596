// Check results as a DBA reads them: each check by its name, failures first, the checks that could not
// run counted apart and their cause said once, and a headline that cannot say "nothing failed" about
// a pipeline that has no tables yet.
import type { CheckResult } from './controlApi';

/**
 * Each check the agents run: its name, and what it expects of the source, said for a reader who has
 * never seen the app (the readiness report). An unknown id reads as itself, expecting nothing said.
 */
const CHECKS: Record<string, { title: string; expected: string }> = {
  'credentials-set': { title: 'Host credentials stored', expected: 'The agent holds its host credentials.' },
  'configuration-set': { title: 'Agent settings stored', expected: 'The agent holds its settings.' },
  'host-reachable': { title: 'Host reachable', expected: 'The host answers on its port from the engine.' },
  names: {
    title: 'Names',
    expected: "No table or column the DBA named meets the engine's own objects or another entity's.",
  },
  connection: { title: 'Connection', expected: 'The login signs on.' },
  tls: { title: 'TLS', expected: 'The connection is encrypted with a certificate the engine trusts.' },
  'schemas-catalog': { title: 'Schemas catalogue', expected: 'The login reads the schemas catalogue.' },
  'sync-schema': {
    title: 'SYNC schema',
    expected: 'The SYNC schema exists, or the login may create it at Start.',
  },
  'entity-tables': { title: 'Tables exist', expected: 'Every chosen table exists at the source.' },
  'table-permissions': {
    title: 'Table permissions',
    expected: 'The login reads every chosen table and writes its checkpoint table.',
  },
  'view-change-tracking': {
    title: 'VIEW CHANGE TRACKING',
    expected: 'The login holds VIEW CHANGE TRACKING on every chosen table.',
  },
  'change-tracking-database': {
    title: 'Change Tracking on the database',
    expected: 'Change Tracking is on for the database.',
  },
  'change-retention': {
    title: 'Change retention',
    expected: 'Change retention is long enough to outlast a pause of the pipeline.',
  },
  'snapshot-isolation': {
    title: 'Snapshot isolation',
    expected: 'Snapshot isolation is allowed, so copies read one consistent version.',
  },
  'change-tracking-tables': {
    title: 'Change Tracking on the tables',
    expected: 'Change Tracking is on for every chosen table.',
  },
  'primary-keys': { title: 'Primary keys', expected: 'Every chosen table has a primary key.' },
  'column-types': { title: 'Column types', expected: 'Every column has a type the agent decodes exactly.' },
  'ccsid-overrides': {
    title: 'CCSID overrides',
    expected: "Each forced CCSID fits its file's columns, and a sample of the rows decodes in it.",
  },
  'commit-times': {
    title: 'Commit times',
    expected:
      'The login reads commit times live (VIEW SERVER STATE, or VIEW SERVER PERFORMANCE STATE from 2022).',
  },
  'user-profile': {
    title: 'User profile',
    expected: 'The user profile is enabled and its password not expired.',
  },
  'permission-read-source': {
    title: 'Read the source',
    expected: 'The user profile reads every chosen file.',
  },
  'permission-create-library': {
    title: 'Create the sync library',
    expected: 'The user profile may create the sync library.',
  },
  'permission-create-files': {
    title: 'Create files in the sync library',
    expected: 'The user profile may create files in the sync library.',
  },
  'permission-sync-files': {
    title: 'Write the checkpoint table',
    expected: 'The user profile writes the checkpoint table.',
  },
  'permission-chgjrn': {
    title: 'Change the journal (CHGJRN)',
    expected: 'The user profile may run CHGJRN on the sync journal.',
  },
  'permission-dspjrn': {
    title: 'Read journals (DSPJRN)',
    expected: "The user profile may run DSPJRN on the files' journals.",
  },
  'permission-chgpf': { title: 'Change files (CHGPF)', expected: 'The user profile may run CHGPF.' },
  'permission-dltf': {
    title: 'Delete files (DLTF)',
    expected: 'The user profile may run DLTF in the sync library.',
  },
  journaling: {
    title: 'Journaling',
    expected: 'Every chosen file is journaled with before and after images (*BOTH).',
  },
  'journal-attributes': {
    title: 'Journal attributes',
    expected: 'The journals keep what the agent reads: receivers not deleted before it reads them.',
  },
  'journal-detected': { title: 'Journal detected', expected: "Each file's journal is found." },
  'sync-library': {
    title: 'Sync library',
    expected: "The sync library is this agent's alone and journals no source file.",
  },
  'row-identification': {
    title: 'Row identification',
    expected: 'Every chosen file identifies its rows: a primary key, a logical key or RRN.',
  },
  members: { title: 'Members', expected: 'Every chosen file has the members the agent reads.' },
  'target-writable': {
    title: 'Target writable',
    expected: 'The target accepts the tables the pipeline writes.',
  },
};

export const checkTitle = (id: string): string => CHECKS[id]?.title ?? id;
export const checkExpected = (id: string): string => CHECKS[id]?.expected ?? '';

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
