// The check of the CCSIDs entities force over their files' tags (forcedCcsid.ts): each override fits
// the file's columns, and a sample of the file's rows decodes in the forced CCSID. A DBA guessing the
// CCSID of a 65535 file sees at the checks, before any row moves, what the bytes read as and how many
// have no character in it; a wrong guess shows as unmappable bytes or text that reads wrong.
import type { CheckResult, Entity } from '../../../shared/controlApi';
import { labelOf } from '../../../shared/config/parse';
import { journalConfiguration } from '../../../shared/agents/journal';
import { sqlIdentifier as qi, type IbmiConnection } from '../../../lib/ibmi/connection';
import { decodeText, firstUnmapped } from '../../../lib/ibmi/ccsid';
import type { FieldDef } from '../../../lib/ibmi/recordImage';
import { tableKey } from '../source';
import { forcedLayout, forcedText } from './forcedCcsid';
import type { FileLayout } from './layout';
import { fieldRead } from './memberReader';

/** Rows read per file: enough to show a wrong guess, few enough for 850 files. */
export const SAMPLE_ROWS = 100;

/** A sample value shown in the message: short, its control characters visible. */
const shown = (text: string) =>
  JSON.stringify(text.trimEnd().length > 40 ? `${text.trimEnd().slice(0, 40)}…` : text.trimEnd());

/** What a sample of one file's forced fields decoded to, in a line per field. */
async function sampled(
  c: IbmiConnection,
  layout: FileLayout,
  forced: FieldDef[],
): Promise<{ lines: string[]; unmapped: number }> {
  const rows = await c.query(
    `SELECT RRN(T) AS RRN, ${forced.map((f, i) => `${fieldRead(f)} AS ${qi(`C${i}`)}`).join(', ')} ` +
      `FROM ${qi(layout.library)}.${qi(layout.file)} T FETCH FIRST ${SAMPLE_ROWS} ROWS ONLY`,
  );
  let unmapped = 0;
  const lines = forced.map((f, i) => {
    const ccsid = 'ccsid' in f.type ? f.type.ccsid : 0;
    let values = 0;
    let bad = 0;
    let firstBad: string | null = null;
    let example: string | null = null;
    for (const r of rows) {
      const v = r[`C${i}`];
      if (!(v instanceof Uint8Array)) continue;
      values++;
      const miss = firstUnmapped(v, ccsid);
      if (miss) {
        bad++;
        firstBad ??= `RRN ${Number(r.RRN)}, byte${miss.bytes.length > 1 ? 's' : ''} 0x${Buffer.from(miss.bytes).toString('hex').toUpperCase()} at offset ${miss.at}`;
      } else if (example === null) {
        const text = decodeText(v, ccsid);
        if (text.trim() !== '') example = text;
      }
    }
    unmapped += bad;
    const head = `${layout.library}/${layout.file} ${forcedText(f) ?? f.name}`;
    if (values === 0) return `${head}: no value in the first ${SAMPLE_ROWS} rows to sample.`;
    const reads = example === null ? '' : `; reads as ${shown(example)}`;
    return bad
      ? `${head}: ${bad} of ${values} sampled values hold bytes with no character in CCSID ${ccsid} (first at ${firstBad})${reads}.`
      : `${head}: ${values === 1 ? 'the one sampled value decodes' : `${values} sampled values decode`}${reads}.`;
  });
  return { lines, unmapped };
}

/** The entities' CCSID overrides: each fits its file, and a sample of its rows decodes; null when none is set. */
export async function ccsidOverridesCheck(
  c: IbmiConnection,
  layouts: readonly FileLayout[],
  entities: readonly Entity[],
): Promise<CheckResult | null> {
  const overridden = entities.filter((e) => e.forceCcsid !== undefined);
  if (overridden.length === 0) return null;
  const failed: string[] = [];
  const lines: string[] = [];
  let unmapped = 0;
  for (const e of overridden) {
    const l = layouts.find((x) => tableKey(x.ref) === tableKey(e.source));
    if (!l) continue; // the journaling check says it is missing
    let forced: FileLayout;
    try {
      forced = forcedLayout(l, e.forceCcsid, tableKey(e.source));
    } catch (error) {
      failed.push(error instanceof Error ? error.message : String(error));
      continue;
    }
    const fields = forced.fields.filter((f) => f.taggedCcsid !== undefined);
    try {
      const sample = await sampled(c, forced, fields);
      lines.push(...sample.lines);
      unmapped += sample.unmapped;
    } catch (error) {
      // A file the profile cannot read: the permission checks say so; the override is unproven.
      unmapped++;
      lines.push(
        `${tableKey(e.source)}: no sample could be read (${error instanceof Error ? error.message : String(error)}).`,
      );
    }
  }
  const invalidText = labelOf(journalConfiguration, 'invalidText');
  return {
    id: 'ccsid-overrides',
    status: failed.length ? 'failed' : unmapped ? 'warning' : 'passed',
    message: [...failed, ...lines].join('\n'),
    remedy: failed.length
      ? 'Correct forceCcsid on these entities; the pipeline does not start while an override does not fit its file.'
      : unmapped
        ? `Check that the forced CCSID is the one the bytes were written in (a wrong one reads as wrong characters or bytes with none). Rows holding such bytes are kept aside, or take "${invalidText}"'s value.`
        : null,
  };
}
