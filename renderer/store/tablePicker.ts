// Choosing a pipeline's tables: a page of the source's catalogue at a time (searched, by schema), the
// tables chosen with their target names, saved as the pipeline's entities. Entities already stored
// open as chosen, and keep their other settings (row identification, columns, journal) when saved.
import type { SchemaChanges } from '../../shared/agents/common';
import type { CatalogTable, Entity } from '../../shared/controlApi';
import { agentTypes, agentTypeSchema } from '../../shared/agents';
import { useStore } from './index';
import { loadTables } from './pipelinePage';
import { sameAddress } from './answerOrder';
import { count } from '../../shared/format';
import { rowFilterProblem } from '../../shared/rowFilter';
import { forceCcsidInput, parseForceCcsid } from '../../shared/ccsidOverride';
import { tableModeSchema, type TableMode } from '../../shared/shaping';
import type { ChosenTable, PickerAddress, TablePickerState } from './state';

export const keyOf = (t: { schema: string; table: string }) => JSON.stringify([t.schema, t.table]);

/** A target name no other chosen table is likely to have: the type says (by default the table's name). */
function defaultTarget(agentType: string, t: { schema: string; table: string }): string {
  const declared = agentTypeSchema.safeParse(agentType);
  const name = declared.success ? agentTypes[declared.data].ui?.defaultTargetName : undefined;
  return name ? name(t) : t.table.toLowerCase();
}

const failure = (error: unknown) => (error instanceof Error ? error.message : 'The request failed.');

const update = (change: (p: TablePickerState) => Partial<TablePickerState>) =>
  useStore.setState((s) => (s.picker ? { picker: { ...s.picker, ...change(s.picker) } } : s));

/** Whether the picker still shows `address` (an answer for one closed since is dropped). */
const stillFor = (address: PickerAddress) => sameAddress(useStore.getState().picker?.address, address);

export async function openPicker(address: PickerAddress): Promise<void> {
  const { api } = useStore.getState();
  if (!api) return;
  useStore.setState({
    picker: {
      address,
      search: '',
      schema: '',
      cursors: [null],
      loading: true,
      chosen: {},
      stored: [],
      saving: false,
    },
  });
  try {
    const { entities } = await api.getEngineEntities({
      profileId: address.profileId,
      pipelineId: address.pipelineId,
    });
    if (!stillFor(address)) return;
    const chosen = Object.fromEntries(
      entities.map((e) => [
        keyOf(e.source),
        {
          ...e.source,
          target: e.target.table,
          ...(e.schemaChanges && { schemaChanges: e.schemaChanges }),
          ...(e.rowFilter !== undefined && { rowFilter: e.rowFilter }),
          ...(e.forceCcsid !== undefined && { forceCcsid: forceCcsidInput(e.forceCcsid) }),
          ...(e.tableMode && e.tableMode.kind !== 'live' && { tableMode: e.tableMode.kind }),
          ...(e.rowIdentification.kind === 'rrn' && { rowIdentification: { kind: 'rrn' as const } }),
          ...(e.rowIdentification.kind === 'logicalKey' && {
            rowIdentification: {
              kind: 'logicalKey' as const,
              columns: e.rowIdentification.columns.join(', '),
            },
          }),
        },
      ]),
    );
    update(() => ({ stored: entities, chosen }));
  } catch (error) {
    if (stillFor(address)) update(() => ({ error: failure(error) }));
  }
  await loadPage(null);
}

export function closePicker(): void {
  useStore.setState({ picker: undefined });
}

/** One page of the source's catalogue, as the picker's search and schema filter it. */
function catalogPage(
  api: NonNullable<ReturnType<typeof useStore.getState>['api']>,
  { address, search, schema }: Pick<TablePickerState, 'address' | 'search' | 'schema'>,
  after: string | null,
) {
  return api.searchEngineCatalog({
    profileId: address.profileId,
    pipelineId: address.pipelineId,
    agentId: address.agentId,
    query: { search: search || undefined, schema: schema || undefined, after, limit: 100 },
  });
}

async function loadPage(after: string | null): Promise<void> {
  const { api, picker } = useStore.getState();
  if (!api || !picker) return;
  const { address } = picker;
  update(() => ({ loading: true, error: undefined }));
  try {
    const page = await catalogPage(api, picker, after);
    if (stillFor(address)) update(() => ({ page, loading: false }));
  } catch (error) {
    if (stillFor(address)) update(() => ({ loading: false, error: failure(error) }));
  }
}

/** A new search or schema: from the first page again. */
export function setFilter(filter: { search?: string; schema?: string }): Promise<void> {
  update(() => ({ ...filter, cursors: [null] }));
  return loadPage(null);
}

export function nextPage(): Promise<void> {
  const next = useStore.getState().picker?.page?.next;
  if (!next) return Promise.resolve();
  update((p) => ({ cursors: [...p.cursors, next] }));
  return loadPage(next);
}

export function previousPage(): Promise<void> {
  const cursors = useStore.getState().picker?.cursors ?? [null];
  if (cursors.length < 2) return Promise.resolve();
  const back = cursors.slice(0, -1);
  update(() => ({ cursors: back }));
  return loadPage(back.at(-1) ?? null);
}

/** What the source's type says of a table without a primary key (undefined: it has one, or no rule). */
export function keylessRule(agentType: string, t: CatalogTable) {
  return t.primaryKey.length > 0 ? undefined : keylessRuleOf(agentType);
}

/** What the registry says of the picker's source type (none for a type it does not know). */
function uiOf(agentType: string) {
  const declared = agentTypeSchema.safeParse(agentType);
  return declared.success ? agentTypes[declared.data].ui : undefined;
}

/** Whether the source's type reads text by a CCSID the DBA forces (the picker's "Text CCSID" column). */
export const overridesCcsid = (agentType: string): boolean => uiOf(agentType)?.ccsidOverrides === true;

const keylessRuleOf = (agentType: string) => uiOf(agentType)?.keylessTables;

export function toggle(t: CatalogTable, on: boolean): void {
  // A table the source cannot replicate without a key is never chosen (the picker says why).
  if (on && keylessRule(useStore.getState().picker?.address.agentType ?? '', t)?.kind === 'refused') return;
  update((p) => {
    const key = keyOf(t);
    const others = Object.entries(p.chosen).filter(([k]) => k !== key);
    const mine = on
      ? [
          [
            key,
            {
              schema: t.schema,
              table: t.table,
              target: p.chosen[key]?.target ?? defaultTarget(p.address.agentType, t),
              ...(p.chosen[key]?.rowIdentification && { rowIdentification: p.chosen[key].rowIdentification }),
              ...(p.chosen[key]?.rowFilter !== undefined && { rowFilter: p.chosen[key].rowFilter }),
              ...(p.chosen[key]?.forceCcsid !== undefined && { forceCcsid: p.chosen[key].forceCcsid }),
              ...(p.chosen[key]?.tableMode && { tableMode: p.chosen[key].tableMode }),
              ...(keylessRule(p.address.agentType, t)?.kind === 'choose-key' && { keyless: true }),
            },
          ] as const,
        ]
      : [];
    return { chosen: Object.fromEntries([...others, ...mine]), result: undefined };
  });
}

/** Every table of the page shown, chosen or not. */
export function chooseShown(on: boolean): void {
  for (const t of useStore.getState().picker?.page?.tables ?? []) toggle(t, on);
}

/**
 * Every table the search and schema match, on every page (850 tables are nine pages): read page after
 * page from the first, each chosen, or each let go. Tables the source cannot replicate stay out, told.
 */
export async function chooseAllMatching(on: boolean): Promise<void> {
  const { api, picker } = useStore.getState();
  if (!api || !picker) return;
  const { address, search, schema } = picker;
  update(() => ({ choosingAll: true, error: undefined, result: undefined }));
  let after: string | null = null;
  let refused = 0;
  let taken = 0;
  try {
    do {
      const page = await catalogPage(api, { address, search, schema }, after);
      if (!stillFor(address)) return;
      for (const t of page.tables) {
        if (on && keylessRule(address.agentType, t)?.kind === 'refused') refused += 1;
        else {
          toggle(t, on);
          taken += 1;
        }
      }
      after = page.next;
    } while (after);
    const what = `${count(taken)} matching ${taken === 1 ? 'table' : 'tables'} ${on ? 'chosen' : 'let go'}`;
    update(() => ({
      choosingAll: false,
      notice:
        refused > 0
          ? `${what}; ${count(refused)} the source cannot replicate left out (see their rows).`
          : `${what}.`,
    }));
  } catch (error) {
    if (stillFor(address)) update(() => ({ choosingAll: false, error: failure(error) }));
  }
}

export function setTarget(key: string, target: string): void {
  update((p) => {
    const table = p.chosen[key];
    return table ? { chosen: { ...p.chosen, [key]: { ...table, target } }, result: undefined } : {};
  });
}

/** The chosen tables' own settings, each left out for the default. */
type ChosenSetting = 'schemaChanges' | 'rowIdentification' | 'rowFilter' | 'tableMode' | 'forceCcsid';

/** One setting of a chosen table, set, or left out when undefined; the last save's answer no longer holds. */
function setChosen<K extends ChosenSetting>(
  key: string,
  setting: K,
  value: ChosenTable[K] | undefined,
): void {
  update((p) => {
    const table = p.chosen[key];
    if (!table) return {};
    const next: ChosenTable = { ...table, [setting]: value };
    // Left out rather than undefined: the entity then says nothing of it, and takes the default.
    if (value === undefined) Reflect.deleteProperty(next, setting);
    return { chosen: { ...p.chosen, [key]: next }, result: undefined };
  });
}

/** A chosen table's row filter as typed; empty: every row. */
export function setRowFilter(key: string, rowFilter: string): void {
  setChosen(key, 'rowFilter', rowFilter);
}

/** A chosen table's CCSID override as typed; empty: the file's tags are read. */
export function setForceCcsid(key: string, forceCcsid: string): void {
  setChosen(key, 'forceCcsid', forceCcsid);
}

/** A chosen table's mode at the target: live (left out), soft delete or history. */
export function setTableMode(key: string, mode: TableMode['kind']): void {
  setChosen(key, 'tableMode', mode === 'live' ? undefined : mode);
}

/** A chosen table's own schema-change policy, or the pipeline's again (undefined). */
export function setSchemaChanges(key: string, schemaChanges: SchemaChanges | undefined): void {
  setChosen(key, 'schemaChanges', schemaChanges);
}

/** A keyless table's rows told apart by RRN or by a logical key, or by the primary key again (undefined). */
export function setRowIdentification(key: string, id: ChosenTable['rowIdentification']): void {
  setChosen(key, 'rowIdentification', id);
}

const columnsOf = (typed: string) =>
  typed
    .split(',')
    .map((c) => c.trim())
    .filter((c) => c !== '');

/** The chosen tables as entities: a table stored before keeps its other settings. */
function entitiesOf(p: Pick<TablePickerState, 'chosen' | 'stored'>): Entity[] {
  const stored = new Map(p.stored.map((e) => [keyOf(e.source), e]));
  return Object.entries(p.chosen).map(([key, t]): Entity => {
    const {
      schemaChanges: _stored,
      rowFilter: _filter,
      forceCcsid: _forced,
      tableMode: storedMode,
      ...before
    } = stored.get(key) ?? {
      source: { schema: t.schema, table: t.table },
      target: { table: t.target },
      rowIdentification: { kind: 'primaryKey' as const },
    };
    const id = t.rowIdentification;
    return {
      ...before,
      target: { ...before.target, table: t.target },
      rowIdentification:
        id?.kind === 'rrn'
          ? { kind: 'rrn' }
          : id?.kind === 'logicalKey'
            ? { kind: 'logicalKey', columns: columnsOf(id.columns) }
            : { kind: 'primaryKey' },
      ...(t.schemaChanges && { schemaChanges: t.schemaChanges }),
      ...(t.rowFilter?.trim() && { rowFilter: t.rowFilter.trim() }),
      ...forcedOf(t),
      // The stored mode's column names are kept; a mode chosen anew takes its default names.
      ...(t.tableMode && {
        tableMode:
          storedMode?.kind === t.tableMode ? storedMode : tableModeSchema.parse({ kind: t.tableMode }),
      }),
    };
  });
}

/** A chosen table's typed override as the entity's forceCcsid; saveTables refuses one that does not parse. */
function forcedOf(t: ChosenTable): Pick<Entity, 'forceCcsid'> {
  const parsed = parseForceCcsid(t.forceCcsid ?? '');
  return 'value' in parsed && parsed.value !== undefined ? { forceCcsid: parsed.value } : {};
}

/** Chosen tables without a primary key whose rows nothing identifies yet, by name. */
function unkeyed(p: TablePickerState): string[] {
  const shownKeyless = new Set(
    (p.page?.tables ?? [])
      .filter((t) => keylessRule(p.address.agentType, t)?.kind === 'choose-key')
      .map((t) => keyOf(t)),
  );
  return Object.entries(p.chosen)
    .filter(([key, t]) => {
      const id = t.rowIdentification;
      const known = t.keyless === true || shownKeyless.has(key) || id !== undefined;
      return known && (!id || (id.kind === 'logicalKey' && columnsOf(id.columns).length === 0));
    })
    .map(([, t]) => `${t.schema}.${t.table}`);
}

/** Saves the chosen tables as the pipeline's entities; the engine's refusal is the result, in its words. */
export async function saveTables(): Promise<void> {
  const { api, picker } = useStore.getState();
  if (!api || !picker || picker.saving) return;
  const { address } = picker;
  const missing = unkeyed(picker);
  const rule = keylessRuleOf(address.agentType);
  if (missing.length > 0 && rule?.kind === 'choose-key') {
    update(() => ({
      result: {
        ok: false,
        message: `${missing.join(', ')} ${missing.length === 1 ? 'has' : 'have'} ${rule.beforeSaving}`,
      },
    }));
    return;
  }
  const unparsed = Object.values(picker.chosen).flatMap((t) => {
    const problem = rowFilterProblem(t.rowFilter ?? '');
    const forced = parseForceCcsid(t.forceCcsid ?? '');
    return [
      ...(problem ? [`the row filter of ${t.schema}.${t.table}: ${problem}`] : []),
      ...('problem' in forced ? [`the text CCSID of ${t.schema}.${t.table}: ${forced.problem}`] : []),
    ];
  });
  if (unparsed.length > 0) {
    update(() => ({ result: { ok: false, message: `Not saved: ${unparsed.join('; ')}.` } }));
    return;
  }
  const entities = entitiesOf(picker);
  update(() => ({ saving: true, result: undefined }));
  try {
    const answer = await api.saveEngineEntities({
      profileId: address.profileId,
      pipelineId: address.pipelineId,
      entities,
    });
    if (!stillFor(address)) return;
    // The Tables view of the same pipeline, when shown, shows the new tables at once.
    const { pipelinePage } = useStore.getState();
    if (pipelinePage.tables !== undefined && pipelinePage.selected?.startsWith(`${address.pipelineId}/`))
      void loadTables();
    const count = answer.entities.length;
    const warnings = answer.warnings.length ? ` ${answer.warnings.join(' ')}` : '';
    update(() => ({
      saving: false,
      stored: answer.entities,
      result: {
        ok: true,
        message: `Saved: the pipeline replicates ${count} table${count === 1 ? '' : 's'}.${warnings}`,
      },
    }));
  } catch (error) {
    if (stillFor(address)) update(() => ({ saving: false, result: { ok: false, message: failure(error) } }));
  }
}
