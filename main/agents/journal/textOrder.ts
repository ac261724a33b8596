// The order Arabic (420) and Hebrew (424) text reaches the target in. IBM i stores it in visual order,
// as a 5250 screen shows it; IBM's Toolbox reads it into logical order, and so does the agent unless
// the source's textOrder, or an entity's over it (per file or per column), says "stored".
import { VISUAL_CCSIDS } from '../../../lib/ibmi/bidi';
import type { FieldDef } from '../../../lib/ibmi/recordImage';
import type { JournalConfiguration } from '../../../shared/agents/journal';
import type { Entity } from '../../../shared/controlApi';
import { columnSetting, derivedLayout, type DerivedLayouts, type FileLayout } from './layout';
import { ibmiFold } from '../../../shared/names';

type TextOrder = JournalConfiguration['textOrder'];
export type EntityTextOrder = NonNullable<Entity['textOrder']>;

/** Whether a field is text a visual-order CCSID holds: CHAR or VARCHAR in 420 or 424. */
const isVisualText = (f: FieldDef) =>
  (f.type.kind === 'char' || f.type.kind === 'varchar') && VISUAL_CCSIDS.has(f.type.ccsid);

/**
 * The layout with its visual-order fields marked to be read in logical order, by the source's setting
 * and the entity's over it. A column the entity names that the file lacks, or that holds no 420 or
 * 424 text, is an Error naming it, raised before anything is read. `layout` is the one forcedLayout
 * gave: a forced 424 over a 65535 tag is visual text too.
 */
export function orderedLayout(
  layout: FileLayout,
  source: TextOrder,
  entity: EntityTextOrder | undefined,
  table: string,
): FileLayout {
  const key = `${source} ${JSON.stringify(entity ?? null)}`;
  return derivedLayout(made, layout, key, () => withOrder(layout, source, entity, table));
}

const made: DerivedLayouts = new WeakMap();

function withOrder(
  layout: FileLayout,
  source: TextOrder,
  entity: EntityTextOrder | undefined,
  table: string,
): FileLayout {
  const perColumn = typeof entity === 'object' ? entity : null;
  if (perColumn) {
    const misfits = Object.keys(perColumn).flatMap((c) => {
      const f = layout.fields.find((d) => d.name === ibmiFold(c));
      if (!f) return [`${c} is not a column of the file`];
      return isVisualText(f) ? [] : [`${c} holds no CCSID 420 or 424 text`];
    });
    if (misfits.length)
      throw new Error(
        `${table} textOrder: ${misfits.join('; ')}. Name the CHAR and VARCHAR columns tagged (or forced) 420 or 424.`,
      );
  }
  const orderOf = (f: FieldDef): TextOrder =>
    (perColumn && columnSetting(perColumn, f)) ?? (typeof entity === 'string' ? entity : source);
  let changed = false;
  const fields = layout.fields.map((f) => {
    const logical = isVisualText(f) && orderOf(f) === 'logical';
    if (logical === (f.logicalOrder === true)) return f;
    changed = true;
    if (logical) return { ...f, logicalOrder: true as const };
    const { logicalOrder: _, ...stored } = f;
    return stored;
  });
  return changed ? { ...layout, fields } : layout;
}
