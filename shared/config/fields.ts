// Each setting is declared once, here: its validator, label, help, default and rule in plain words.
// The parser, the generated form, the docs and the JSON Schema all read these declarations.
import { z } from 'zod';
import { IBMI_NATIONAL_CHARACTERS, ibmiFold } from './ibmiNames';

export type FieldKind = 'text' | 'secret' | 'integer' | 'boolean' | 'choice' | 'ibmiName';
export type FieldDefault = string | number | boolean | null;

export interface FieldMeta {
  kind: FieldKind;
  label: string;
  help: string;
  /** The rule in plain words, completing "<field> must be …". */
  rule: string;
  required: boolean;
  default?: FieldDefault;
  choices?: readonly (string | number)[];
  /** For a nullable choice: what leaving it empty means. */
  nullMeans?: string;
  /** Fields in the "advanced" group sit in a collapsed part of the form. */
  group?: 'advanced';
}

export const fieldMeta = z.registry<FieldMeta>();

interface Described {
  label: string;
  help: string;
  group?: 'advanced';
}

function describe<S extends z.ZodType>(schema: S, meta: FieldMeta): S {
  fieldMeta.add(schema, meta);
  return schema;
}

const lengthRule = (min: number, max: number) =>
  min === max ? `exactly ${max} characters` : `${min} to ${max} characters`;

export function text(o: Described & { max: number; noSpaces?: boolean }) {
  const rule = `a string of ${lengthRule(1, o.max)}${o.noSpaces ? ' with no spaces' : ''}`;
  let schema = z.string().min(1).max(o.max);
  if (o.noSpaces) schema = schema.regex(/^\S+$/);
  return describe(schema, { kind: 'text', rule, required: true, ...o });
}

export function optionalText(o: Described & { max: number }) {
  const rule = `a string of ${lengthRule(1, o.max)}, or left out`;
  return describe(z.string().min(1).max(o.max).optional(), { kind: 'text', rule, required: false, ...o });
}

export function secret(o: Described & { max: number }) {
  const rule = `a string of ${lengthRule(1, o.max)}`;
  return describe(z.string().min(1).max(o.max), { kind: 'secret', rule, required: true, ...o });
}

/**
 * Text that must match `pattern` (`patternRule` says it in words), with a default when one is given:
 * a name the engine writes into a protocol (a stream, a subject) where only some characters are legal.
 */
export function patternText(
  o: Described & { max: number; pattern: RegExp; patternRule: string; default?: string },
) {
  const { pattern, patternRule, ...meta } = o;
  const rule = `a string of ${lengthRule(1, o.max)}: ${patternRule}`;
  const base = z.string().min(1).max(o.max).regex(pattern);
  if (o.default === undefined) return describe(base, { kind: 'text', rule, required: true, ...meta });
  return describe(base.default(o.default), { kind: 'text', rule, required: false, ...meta });
}

/** Text matching `pattern`, or left out (its meaning then said in `help`). */
export function optionalPatternText(
  o: Described & {
    max: number;
    pattern: RegExp;
    patternRule: string;
    /** What the pattern cannot say (no entry twice); `patternRule` says it in words. */
    holds?: (value: string) => boolean;
  },
) {
  const { pattern, patternRule, holds, ...meta } = o;
  const matching = z.string().min(1).max(o.max).regex(pattern);
  return describe((holds ? matching.refine(holds) : matching).optional(), {
    kind: 'text',
    rule: `${patternRule}, or left out`,
    required: false,
    ...meta,
  });
}

/** A secret that may be left out; a later edit that leaves it out keeps the stored one, as for every secret. */
export function optionalSecret(o: Described & { max: number }) {
  const rule = `a string of ${lengthRule(1, o.max)}, or left out`;
  return describe(z.string().min(1).max(o.max).optional(), {
    kind: 'secret',
    rule,
    required: false,
    ...o,
  });
}

export function integer<D extends number>(o: Described & { min: number; max: number; default: D }) {
  const rule = `a whole number from ${o.min} to ${o.max}`;
  return describe(z.number().int().min(o.min).max(o.max).default(o.default), {
    kind: 'integer',
    rule,
    required: false,
    ...o,
  });
}

export function boolean(o: Described & { default: boolean }) {
  return describe(z.boolean().default(o.default), {
    kind: 'boolean',
    rule: 'true or false',
    required: false,
    ...o,
  });
}

const listChoices = (values: readonly (string | number)[]) => values.map((v) => JSON.stringify(v)).join(', ');

export function choice<const T extends readonly [string, ...string[]]>(
  o: Described & { values: T; default: T[number] },
) {
  return describe(z.enum(o.values).default(o.default as never), {
    kind: 'choice',
    rule: `one of ${listChoices(o.values)}`,
    required: false,
    choices: o.values,
    ...o,
  });
}

/** A choice that may stay empty (null), meaning `nullMeans`. */
export function nullableChoice<const T extends readonly [string, ...string[]]>(
  o: Described & { values: T; nullMeans: string },
) {
  return describe(z.enum(o.values).nullable().default(null), {
    kind: 'choice',
    rule: `one of ${listChoices(o.values)}, or null (${o.nullMeans})`,
    required: false,
    choices: o.values,
    default: null,
    ...o,
  });
}

export function numberChoice<const T extends readonly [number, ...number[]]>(
  o: Described & { values: T; default: T[number] },
) {
  const literals = o.values.map((v) => z.literal(v)) as unknown as [
    z.ZodLiteral<T[number]>,
    ...z.ZodLiteral<T[number]>[],
  ];
  return describe(z.union(literals).default(o.default as never), {
    kind: 'choice',
    rule: `one of ${listChoices(o.values)}`,
    required: false,
    choices: o.values,
    ...o,
  });
}

/**
 * IBM i object names (decisions.md): 1–10 of A-Z 0-9 _ $ # @, not starting with a digit, stored
 * upper-case; $ # @ as the system's CCSID shows them (IBMI_NATIONAL_CHARACTERS).
 */
export const IBMI_NAME = new RegExp(
  `^[A-Za-z_${IBMI_NATIONAL_CHARACTERS}][A-Za-z0-9_${IBMI_NATIONAL_CHARACTERS}]{0,9}$`,
  'u',
);
export const IBMI_NAME_RULE =
  '1 to 10 characters of A-Z, 0-9, _, $, # or @ (or the characters the system shows in their place, such as £ for $ under CCSID 285), not starting with a digit';

/**
 * `userLibrary`: a library the agent creates; IBM supplies every object whose name begins with Q
 * ("Object naming rules": user-created names should not), so QSYS, QTEMP, QGPL and the rest are refused.
 */
export function ibmiName(
  o: Described & {
    default: string;
    userLibrary?: boolean;
    /** Names the agent keeps for itself, and why in words ("not one of …"). */
    notTaken?: { test: (upperCaseName: string) => boolean; rule: string };
  },
) {
  const { notTaken, ...meta } = o;
  const name = z.string().regex(IBMI_NAME);
  const reserved = o.userLibrary
    ? ", not starting with Q (IBM's own libraries, such as QSYS, QTEMP and QGPL)"
    : '';
  const upper = (o.userLibrary ? name.regex(/^[^Qq]/) : name).overwrite(ibmiFold);
  const free = notTaken ? upper.refine((v) => !notTaken.test(v)) : upper;
  return describe(free.default(o.default), {
    kind: 'ibmiName',
    rule: `an IBM i name: ${IBMI_NAME_RULE}${reserved}${notTaken ? `, ${notTaken.rule}` : ''} (stored upper-case)`,
    required: false,
    ...meta,
  });
}

/** A SQL identifier-like token: a letter, then letters, digits or underscores. */
export function optionalIdentifier(o: Described & { max: number }) {
  return describe(
    z
      .string()
      .regex(new RegExp(`^[A-Za-z][A-Za-z0-9_]{0,${o.max - 1}}$`))
      .optional(),
    {
      kind: 'text',
      rule: `1 to ${o.max} characters of A-Z, a-z, 0-9 or _, starting with a letter, or left out`,
      required: false,
      ...o,
    },
  );
}
