// Commit messages that read well in a log: each commit after RULE_SINCE has a subject of at most 72
// characters in the imperative ("Add …", not "Added …", "Adds …" or "Docs: …"), without a closing
// period, and a body that says why. Run by `npm run lint`; a clone without that history says so.
import { execFileSync } from 'node:child_process';

/** The last commit before the rule was kept (its successors all keep it). */
export const RULE_SINCE = 'ca75dfb';
const MAX_SUBJECT = 72;
/** Two commits that landed without a body before this check existed; history is not rewritten. */
const LANDED_BEFORE_THE_CHECK = new Set(['4162130', 'd29d40b']);

/** What is wrong with one commit's message, in words; empty when nothing is. */
export function messageProblems(subject, body) {
  const problems = [];
  if (subject.length > MAX_SUBJECT)
    problems.push(`the subject has ${subject.length} characters; at most ${MAX_SUBJECT}`);
  if (subject.endsWith('.')) problems.push('the subject ends with a period');
  const first = subject.split(/\s+/)[0] ?? '';
  if (!/^[A-Z][a-z-]*$/.test(first))
    problems.push(`the subject starts with "${first}", not a verb in the imperative`);
  else if (/(ed|ing)$/.test(first) || (/s$/.test(first) && !/(ss|us|is)$/.test(first)))
    problems.push(`the subject starts with "${first}": write the imperative ("Add", not "Added" or "Adds")`);
  if (body.trim() === '') problems.push('there is no body saying why');
  return problems;
}

function main() {
  let log;
  try {
    log = execFileSync('git', ['log', '--format=%h%x00%s%x00%b%x1e', `${RULE_SINCE}..HEAD`], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch {
    console.log(`commit messages: not checked (no git history back to ${RULE_SINCE} in this copy)`);
    return;
  }
  const bad = log
    .split('\x1e')
    .map((entry) => entry.replace(/^\n/, ''))
    .filter(Boolean)
    .flatMap((entry) => {
      const [hash = '', subject = '', body = ''] = entry.split('\x00');
      if (LANDED_BEFORE_THE_CHECK.has(hash.slice(0, 7))) return [];
      const problems = messageProblems(subject, body);
      return problems.length ? [`${hash} "${subject}": ${problems.join('; ')}`] : [];
    });
  if (bad.length) {
    console.error(
      `Commit messages to fix (git commit --amend, or rebase -i before pushing):\n${bad.join('\n')}`,
    );
    process.exit(1);
  }
  console.log('commit messages: every one since the rule reads well');
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop() ?? '')) main();
