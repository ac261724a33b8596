// Between what the user typed and the JSON body the control API takes. Pure, so it is unit-tested.
import type { Section } from '../../shared/config/section';
import { fieldsOf } from '../../shared/config/parse';
import type { Problem } from '../../shared/config/problems';

export type FormValue = string | boolean;
export type FormValues = Record<string, FormValue>;

export function initialValues(section: Section): FormValues {
  return Object.fromEntries(
    fieldsOf(section).map(({ key, meta }) => {
      if (meta.kind === 'boolean') return [key, meta.default === true];
      return [key, meta.default === undefined || meta.default === null ? '' : String(meta.default)];
    }),
  );
}

/**
 * Empty inputs are left out, so defaults apply and required fields say "required". Numbers are sent as
 * numbers when they look like one, and as typed otherwise, so the schema names the bad value.
 */
export function toBody(section: Section, values: FormValues): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const { key, meta } of fieldsOf(section)) {
    const value = values[key];
    if (value === undefined) continue;
    if (typeof value === 'boolean') {
      body[key] = value;
      continue;
    }
    if (value === '') {
      if (meta.kind === 'choice' && meta.default === null) body[key] = null;
      continue;
    }
    const numeric = meta.kind === 'integer' || typeof meta.choices?.[0] === 'number';
    body[key] = numeric && /^-?\d+$/.test(value.trim()) ? Number(value.trim()) : value;
  }
  return body;
}

/** Problems keyed by field name, for the one section whose pointers start with `/<section id>/`. */
export function problemsByField(problems: readonly Problem[], section: Section): Record<string, Problem> {
  const prefix = `/${section.id}/`;
  const out: Record<string, Problem> = {};
  for (const problem of problems) {
    if (!problem.pointer.startsWith(prefix)) continue;
    const key = problem.pointer.slice(prefix.length).split('/')[0] ?? '';
    out[key] ??= problem;
  }
  return out;
}
