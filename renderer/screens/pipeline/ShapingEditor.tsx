// A table's shaping, edited in its story (docs/shaping.md): per column a mask and a name at the target,
// the row filter with its parse error beside it as it is typed, whether the source's deletes are
// skipped, and the table's mode (live, soft delete, history). Saved as the pipeline's entities; the
// engine's answer (a copy again, a refusal) is shown.
import { useEffect, useId, useState } from 'react';
import { rowFilterProblem } from '../../../shared/rowFilter';
import { MASK_KINDS, type ColumnShaping, type Mask, type TableMode } from '../../../shared/shaping';
import { loadShaping, saveShaping, type ShapingDraft } from '../../store/shaping';

const MASK_WORDS: Record<Mask['kind'], string> = {
  hash: 'hash (HMAC-SHA-256 with the salt)',
  constant: 'a constant',
  null: 'null',
  keepFirst: 'keep the first characters',
  keepLast: 'keep the last characters',
  truncate: 'cut to a length',
};

const TABLE_MODES: readonly (readonly [TableMode['kind'], string])[] = [
  ['live', 'Live: as the source holds them'],
  ['softDelete', 'Soft delete: a deleted row stays, flagged with the time of its delete'],
  ['history', 'History: every change a row of its own, valid from and to (cdc_valid_from, cdc_valid_to)'],
];

/** A mask of this kind, with the number or text it had (or a default). */
function maskOf(kind: Mask['kind'] | '', was: Mask | undefined): Mask | undefined {
  const chars = was && 'chars' in was ? was.chars : 4;
  switch (kind) {
    case '':
      return undefined;
    case 'hash':
    case 'null':
      return { kind };
    case 'constant':
      return { kind, value: was?.kind === 'constant' ? was.value : '***' };
    default:
      return { kind, chars: kind === 'truncate' ? Math.max(1, chars) : chars };
  }
}

export function ShapingEditor({
  table,
  columns,
  onSaved,
}: {
  table: string;
  columns: readonly { name: string; key: boolean }[];
  onSaved(): void;
}) {
  const [draft, setDraft] = useState<ShapingDraft | string | undefined>();
  const [result, setResult] = useState<{ ok: boolean; message: string } | undefined>();
  const [saving, setSaving] = useState(false);
  const id = useId();
  useEffect(() => {
    let current = true;
    void loadShaping(table).then((d) => current && setDraft(d));
    return () => {
      current = false;
    };
  }, [table]);
  if (draft === undefined) return <p className="muted">Reading the table’s shaping…</p>;
  if (typeof draft === 'string')
    return (
      <p role="alert" className="problem">
        {draft}
      </p>
    );
  const own = (name: string): ColumnShaping => draft.columnShaping[name] ?? {};
  const setColumn = (name: string, change: ColumnShaping) => {
    setDraft({ ...draft, columnShaping: { ...draft.columnShaping, [name]: change } });
    setResult(undefined);
  };
  const problem = rowFilterProblem(draft.rowFilter);
  return (
    <form
      className="shaping"
      aria-label={`Shaping of ${table}`}
      onSubmit={(e) => {
        e.preventDefault();
        if (problem) return;
        setSaving(true);
        void saveShaping(table, draft).then((r) => {
          setSaving(false);
          setResult(r);
          if (r.ok) onSaved();
        });
      }}
    >
      <table className="tables" aria-label={`Masks and names of ${table}`}>
        <thead>
          <tr>
            <th scope="col">Column</th>
            <th scope="col">Mask</th>
            <th scope="col">Characters or text</th>
            <th scope="col">Name at the target</th>
          </tr>
        </thead>
        <tbody>
          {columns.map((c) => {
            const s = own(c.name);
            const mask = s.mask;
            return (
              <tr key={c.name}>
                <th scope="row">{c.name}</th>
                <td>
                  <select
                    aria-label={`Mask of ${c.name}`}
                    value={mask?.kind ?? ''}
                    disabled={c.key}
                    title={c.key ? 'A key column is never masked: rows are found again by key.' : undefined}
                    onChange={(e) => {
                      const next = maskOf(e.target.value as Mask['kind'] | '', mask);
                      const { mask: _m, ...rest } = s;
                      setColumn(c.name, next ? { ...rest, mask: next } : rest);
                    }}
                  >
                    <option value="">none: the value as it is</option>
                    {MASK_KINDS.map((k) => (
                      <option key={k} value={k}>
                        {MASK_WORDS[k]}
                      </option>
                    ))}
                  </select>
                </td>
                <td>
                  {mask && 'chars' in mask && (
                    <input
                      type="number"
                      min={mask.kind === 'truncate' ? 1 : 0}
                      max={4000}
                      aria-label={`Characters of ${c.name}`}
                      value={mask.chars}
                      onChange={(e) =>
                        setColumn(c.name, { ...s, mask: { ...mask, chars: Number(e.target.value) } })
                      }
                    />
                  )}
                  {mask?.kind === 'constant' && (
                    <input
                      aria-label={`Constant of ${c.name}`}
                      value={mask.value}
                      onChange={(e) => setColumn(c.name, { ...s, mask: { ...mask, value: e.target.value } })}
                    />
                  )}
                </td>
                <td>
                  <input
                    aria-label={`Name of ${c.name} at the target`}
                    placeholder={c.name}
                    value={s.targetName ?? ''}
                    onChange={(e) => {
                      const { targetName: _t, ...rest } = s;
                      setColumn(c.name, e.target.value ? { ...rest, targetName: e.target.value } : rest);
                    }}
                  />
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <label htmlFor={`${id}-filter`}>Row filter (only rows it holds true for reach the target)</label>
      <textarea
        id={`${id}-filter`}
        rows={2}
        value={draft.rowFilter}
        placeholder="Country in ('CH', 'DE') and Balance >= 0"
        aria-invalid={problem !== null}
        aria-describedby={`${id}-filter-problem`}
        onChange={(e) => {
          setDraft({ ...draft, rowFilter: e.target.value });
          setResult(undefined);
        }}
      />
      <p id={`${id}-filter-problem`} className={problem ? 'problem' : 'muted'} aria-live="polite">
        {problem ?? 'Comparisons, in, like, is null, and, or, not; text in single quotes.'}
      </p>
      <label>
        <input
          type="checkbox"
          checked={draft.skipDeletes}
          onChange={(e) => {
            setDraft({ ...draft, skipDeletes: e.target.checked });
            setResult(undefined);
          }}
        />{' '}
        Skip the source’s deletes (the target keeps every row, an archive)
      </label>
      <fieldset>
        <legend>How the target holds the rows</legend>
        {TABLE_MODES.map(([mode, words]) => (
          <label key={mode}>
            <input
              type="radio"
              name={`${id}-mode`}
              value={mode}
              checked={draft.mode === mode}
              onChange={() => {
                setDraft({ ...draft, mode });
                setResult(undefined);
              }}
            />{' '}
            {words}
          </label>
        ))}
      </fieldset>
      <p className="row-actions">
        <button type="submit" className="primary" disabled={saving || problem !== null}>
          Save shaping
        </button>
      </p>
      {result && (
        <p role="status" className={result.ok ? 'muted' : 'problem'}>
          {result.message}
        </p>
      )}
    </form>
  );
}
