// The readiness report: one self-contained HTML page a DBA hands to a change board or an auditor — the
// source, the agent's settings (secrets only said to be set), every check with what it expects and
// what was found, the change feed (journals and images, or Change Tracking and its retention), each
// table's verdict, versions and the time it was made. Inline styles only, no script, prints to A4/Letter.
import { checkExpected, checkTitle, checksHeadline, checksInOrder } from '../../shared/checkSummary';
import type { Agent, CheckResult, Entity, TableState } from '../../shared/controlApi';
import { shapingSummary, type ProvenanceColumns } from '../../shared/shaping';
import { tableText } from '../../shared/names';
import { dateTime, plural } from '../../shared/format';
import { redactedEntries } from '../../shared/config/parse';
import type { Section } from '../../shared/config/section';
import { agentTypes } from '../../shared/agents';
import { escapeHtml } from '../platform/html';
import { freshnessRows, latencySentence } from '../../shared/freshnessWords';
import type { Freshness, LatencySplit } from '../../shared/liveFeed';

export interface ReadinessFacts {
  pipeline: { id: string; name: string };
  /** As the API answers it: secrets redacted. */
  agent: Agent;
  agentTypeTitle: string;
  endpoint: { host: string; port: number } | null;
  /** Where the pipeline writes, in words. */
  target: string;
  checks: CheckResult[];
  /** Each chosen table as the source sees it; a string when the tables could not be read (why). */
  tables: TableState[] | string;
  /** The pipeline's entities, for what leaves the source (docs/shaping.md). */
  entities: readonly Entity[];
  /** The provenance columns the pipeline adds to every table. */
  provenance: ProvenanceColumns;
  /** How fresh the target has been kept since the engine started: the last batch's split and the windows. */
  freshness: { latency: LatencySplit | null; windows: Freshness } | null;
  madeAt: string;
  versions: Record<string, string>;
}

const esc = escapeHtml;

const STATUS_WORDS: Record<CheckResult['status'], string> = {
  passed: 'Passed',
  warning: 'Warning',
  failed: 'Failed',
  unchecked: 'Could not be checked',
};

function settingsRows(section: Record<string, unknown> | null, declared: Section): string {
  if (!section) return '<tr><td colspan="2">Not set yet.</td></tr>';
  return redactedEntries(section, declared)
    .map(({ label, text }) => `<tr><th scope="row">${esc(label)}</th><td>${esc(text)}</td></tr>`)
    .join('');
}

function checkRows(checks: readonly CheckResult[]): string {
  return checksInOrder(checks)
    .map(
      (c) => `<tr class="s-${c.status}">
  <th scope="row">${esc(checkTitle(c.id))}<br><span class="id">${esc(c.id)}</span></th>
  <td class="status">${STATUS_WORDS[c.status]}</td>
  <td>${esc(checkExpected(c.id) || '–')}</td>
  <td>${esc(c.message)}${c.atStart ? `<br>At Start the agent runs <code>${esc(c.atStart)}</code>` : ''}</td>
  <td>${c.remedy ? esc(c.remedy) : '–'}${c.fix ? `<pre>${esc(c.fix)}</pre>` : ''}</td>
</tr>`,
    )
    .join('\n');
}

const FEED_CHECKS = [
  'change-tracking-database',
  'change-retention',
  'snapshot-isolation',
  'change-tracking-tables',
  'journal-attributes',
  'journaling',
  'journal-detected',
  'sync-schema',
  'sync-library',
];

/** The change feed: its checks' findings, and the journals with the tables journaled to each. */
function feedSection(checks: readonly CheckResult[], tables: TableState[] | string): string {
  const found = FEED_CHECKS.flatMap((id) => checks.filter((c) => c.id === id)).map(
    (c) =>
      `<li><strong>${esc(checkTitle(c.id))}</strong> (${STATUS_WORDS[c.status].toLowerCase()}): ${esc(c.message)}</li>`,
  );
  const journals = new Map<string, string[]>();
  if (Array.isArray(tables))
    for (const t of tables)
      if (t.journal)
        journals.set(t.journal, [
          ...(journals.get(t.journal) ?? []),
          `${t.table} (${t.journalImages ?? '?'})`,
        ]);
  const journalList = [...journals].map(
    ([journal, files]) => `<li><strong>${esc(journal)}</strong>: ${esc(files.join(', '))}</li>`,
  );
  return `<h2>Change feed</h2>
${found.length ? `<ul>${found.join('')}</ul>` : '<p>No change feed check ran (see the checks above).</p>'}
${journalList.length ? `<h3>Journals and the files journaled to them (images)</h3><ul>${journalList.join('')}</ul>` : ''}`;
}

function tableVerdict(t: TableState): string {
  if (!t.exists) return 'Not found at the source';
  return t.problem ?? 'Ready';
}

function feedOf(t: TableState): string {
  if (t.changeTracking !== null) return t.changeTracking ? 'Change Tracking on' : 'Change Tracking off';
  if (t.journal) return `${t.journal}, images ${t.journalImages ?? '?'}`;
  return t.journalImages === null && t.changeTracking === null ? 'not journaled' : '–';
}

function tablesSection(tables: TableState[] | string): string {
  if (typeof tables === 'string')
    return `<h2>Tables</h2><p class="s-failed">The tables could not be read: ${esc(tables)}</p>`;
  if (tables.length === 0) return '<h2>Tables</h2><p class="s-warning">No tables chosen yet.</p>';
  const ready = tables.filter((t) => t.exists && !t.problem).length;
  const rows = tables
    .map(
      (t) => `<tr class="${t.exists && !t.problem ? 's-passed' : 's-failed'}">
  <th scope="row">${esc(t.table)}</th><td>${esc(t.rowIdentification)}</td>
  <td>${esc(t.primaryKey.join(', ') || 'none')}</td><td>${esc(feedOf(t))}</td><td>${esc(tableVerdict(t))}</td>
</tr>`,
    )
    .join('\n');
  return `<h2>Tables</h2>
<p>${ready} of ${plural(tables.length, 'table')} ready.</p>
<table><thead><tr><th scope="col">Table</th><th scope="col">Row identification</th><th scope="col">Primary key</th><th scope="col">Change feed</th><th scope="col">Verdict</th></tr></thead>
<tbody>${rows}</tbody></table>`;
}

/** Per table, what leaves the source: the columns, their masks and names, the rows (docs/shaping.md). */
function leavesSection(entities: readonly Entity[], provenance: ProvenanceColumns): string {
  if (entities.length === 0) return '';
  const added = Object.entries(provenance).map(([kind, name]) => `${name} (${kind})`);
  const rows = entities
    .map((e) => {
      const s = shapingSummary(e);
      return `<tr><th scope="row">${esc(tableText(e.source.schema, e.source.table))}</th><td>${esc(s.columns)}</td>
  <td>${esc(s.masks.join('; ') || 'none: values as they are')}</td><td>${esc(s.names.join('; ') || '–')}</td><td>${esc(s.rows)}</td></tr>`;
    })
    .join('\n');
  return `<h2>What leaves the source</h2>
<p>${added.length > 0 ? `Every table also gets the provenance columns ${esc(added.join(', '))}.` : 'No provenance columns are added.'} A masked column's clear value never leaves the engine: not to the target, the exceptions store or a diagnostics bundle.</p>
<table><thead><tr><th scope="col">Table</th><th scope="col">Columns</th><th scope="col">Masks</th><th scope="col">Names at the target</th><th scope="col">Rows</th></tr></thead>
<tbody>${rows}</tbody></table>`;
}

/** Where the delay is: the last batch's latency by part, and the p50 and p99 of the last minute, hour, day. */
function freshnessSection(f: ReadinessFacts['freshness']): string {
  const applied = f && Object.values(f.windows).some((w) => w.batches > 0);
  if (!f || (!f.latency && !applied))
    return `<h2>Freshness</h2>
<p>No batch applied since the engine started, so no latency was measured yet: start the pipeline, or make the report again once it has run.</p>`;
  const rows = freshnessRows(f.windows)
    .map(({ label, text }) => `<tr><th scope="row">${esc(label)}</th><td>${esc(text)}</td></tr>`)
    .join('');
  return `<h2>Freshness</h2>
${f.latency ? `<p>The last batch took ${esc(latencySentence(f.latency))}.</p>` : ''}
<p>End-to-end latency, from a change's commit at the source to its commit at the target, since the engine started:</p>
<table><tbody>${rows}</tbody></table>`;
}

const STYLE = `
body{font:11pt/1.4 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#111;margin:2em;max-width:60em}
h1{font-size:18pt;margin:0 0 .2em}h2{font-size:14pt;margin:1.4em 0 .4em;border-bottom:1px solid #999}
h3{font-size:12pt}table{border-collapse:collapse;width:100%;margin:.4em 0}
th,td{border:1px solid #bbb;padding:.25em .4em;text-align:left;vertical-align:top}
thead th{background:#eee}.id{font-weight:normal;color:#555;font-size:9pt}
pre,code{font:9pt ui-monospace,Consolas,monospace;white-space:pre-wrap;word-break:break-all}
.s-failed .status,.s-failed td:last-child,p.s-failed{color:#a40000;font-weight:bold}
.s-warning .status,p.s-warning{color:#7a4d00}.s-unchecked .status{color:#555;font-style:italic}
.verdict{font-size:13pt;padding:.4em .6em;border:2px solid #111;display:inline-block}
tr{page-break-inside:avoid}@page{margin:1.5cm}
@media print{body{margin:0}}`;

export function readinessReportHtml(f: ReadinessFacts): string {
  const failed = f.checks.filter((c) => c.status === 'failed').length;
  const unchecked = f.checks.filter((c) => c.status === 'unchecked').length;
  const tableCount = Array.isArray(f.tables) ? f.tables.length : null;
  const tablesBad = Array.isArray(f.tables) ? f.tables.some((t) => !t.exists || t.problem) : true;
  const ready = failed === 0 && unchecked === 0 && tableCount !== null && tableCount > 0 && !tablesBad;
  const title = `Readiness report: ${f.pipeline.name} / ${f.agent.name}`;
  const versions = Object.entries(f.versions)
    .map(([k, v]) => `${esc(k)} ${esc(v)}`)
    .join(', ');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title>
<style>${STYLE}</style></head>
<body>
<h1>${esc(title)}</h1>
<p>Made ${esc(dateTime(f.madeAt, 'en', 'UTC'))} by the replication engine (${versions}).</p>
<p class="verdict">${ready ? 'Ready to replicate' : 'Not ready yet'}: ${esc(checksHeadline(f.checks, tableCount))}</p>
<h2>Source</h2>
<table><tbody>
<tr><th scope="row">Agent type</th><td>${esc(f.agentTypeTitle)} (${esc(f.agent.type)})</td></tr>
<tr><th scope="row">Host</th><td>${f.endpoint ? esc(`${f.endpoint.host}, port ${f.endpoint.port}`) : '–'}</td></tr>
<tr><th scope="row">Pipeline</th><td>${esc(f.pipeline.name)} (${esc(f.pipeline.id)})</td></tr>
<tr><th scope="row">Agent</th><td>${esc(f.agent.name)} (${esc(f.agent.id)}), ${esc(f.agent.state)}</td></tr>
<tr><th scope="row">Target</th><td>${esc(f.target)}</td></tr>
</tbody></table>
<h3>Host credentials (passwords are never part of this report)</h3>
<table><tbody>${settingsRows(f.agent.hostCredentials, agentTypes[f.agent.type].sections.hostCredentials)}</tbody></table>
<h3>Agent settings</h3>
<table><tbody>${settingsRows(f.agent.configuration, agentTypes[f.agent.type].sections.configuration)}</tbody></table>
<h2>Checks</h2>
<p>${plural(f.checks.length, 'check')}: ${failed} failed, ${unchecked} could not be checked. Checks only read the source; a fix statement is run only when a DBA applies it.</p>
<table><thead><tr><th scope="col">Check</th><th scope="col">Status</th><th scope="col">Expected</th><th scope="col">Found</th><th scope="col">Remedy and fix</th></tr></thead>
<tbody>${checkRows(f.checks)}</tbody></table>
${feedSection(f.checks, f.tables)}
${tablesSection(f.tables)}
${leavesSection(f.entities, f.provenance)}
${freshnessSection(f.freshness)}
</body></html>
`;
}
