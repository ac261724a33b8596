import type { z } from 'zod';
import { fieldMeta, type FieldMeta } from './fields';
import { pointerOf, showValue, type ParseResult, type Problem } from './problems';
import type { Section } from './section';

const HIDDEN = '(hidden)';

/** JSON text parsed, or undefined when it is not JSON: for a schema to judge next. */
export function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function metaOf(section: Section, key: string): FieldMeta | undefined {
  const schema = Object.hasOwn(section.schema.shape, key) ? section.schema.shape[key] : undefined;
  return schema ? fieldMeta.get(schema) : undefined;
}

/** A field as the form names it, for a sentence that tells the DBA which setting to change. */
export function labelOf(section: Section, key: string): string {
  return metaOf(section, key)?.label ?? key;
}

/** A declared field's label, for a field declared outside one section (the pipeline's settings). */
export function fieldLabel(field: z.ZodType): string {
  return fieldMeta.get(field)?.label ?? '(unlabelled setting)';
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Parses one configuration object, returning every problem at once.
 * `base` is the JSON pointer of the object itself, e.g. `/hostCredentials`.
 */
export function parseSection<S extends z.ZodObject>(
  section: Section<S>,
  input: unknown,
  base: string = '/' + section.id,
): ParseResult<z.output<S>> {
  if (!isPlainObject(input)) {
    const rule = `a JSON object with the ${section.title.toLowerCase()} fields`;
    return {
      ok: false,
      problems: [
        {
          pointer: base,
          received: showValue(input),
          rule,
          message: `${section.id} must be ${rule}; got ${showValue(input)}.`,
        },
      ],
    };
  }
  const result = section.schema.safeParse(input);
  if (result.success) return { ok: true, value: result.data };

  const allowed = Object.keys(section.schema.shape).join(', ');
  const problems: Problem[] = [];
  const seen = new Set<string>();
  const add = (p: Problem) => {
    if (!seen.has(p.pointer)) problems.push(p);
    seen.add(p.pointer);
  };
  for (const issue of result.error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        const pointer = pointerOf(base, [key]);
        const reason =
          section.refusedKeys && Object.hasOwn(section.refusedKeys, key)
            ? section.refusedKeys[key]
            : undefined;
        const rule = reason ?? `one of the known keys: ${allowed}`;
        const message = reason
          ? `"${key}" is refused: ${reason}.`
          : `"${key}" is not a field of ${section.id}; the allowed keys are: ${allowed}.`;
        add({ pointer, received: showValue(input[key]), rule, message });
      }
      continue;
    }
    const key = String(issue.path[0] ?? '');
    const meta = metaOf(section, key);
    const pointer = pointerOf(base, issue.path);
    const value = input[key];
    const received = meta?.kind === 'secret' ? HIDDEN : showValue(value);
    const rule = meta?.rule ?? issue.message;
    // The field as the form names it; the pointer names the key for a program.
    const name = meta?.label ?? key;
    const message =
      value === undefined
        ? `${name} is required: ${meta?.help ?? ''}`.trim()
        : `${name} must be ${rule}; got ${received}.`;
    add({ pointer, received, rule, message });
  }
  return { ok: false, problems };
}

/**
 * What an answer may show of a parsed object: every secret replaced by null, with `<key>Set` telling
 * whether one is stored (decisions.md: `"password": null, "passwordSet": true`).
 */
export function redactSection(section: Section, value: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...value };
  for (const key of secretKeysOf(section)) {
    out[`${key}Set`] = typeof value[key] === 'string' && value[key] !== '';
    out[key] = null;
  }
  return out;
}

/**
 * A stored section as a DBA reads it: each field by its label in `declared` (the key where the type
 * does not declare it), booleans as yes or no, secrets only said to be set.
 */
export function redactedEntries(
  section: Record<string, unknown>,
  declared?: Section,
): { key: string; label: string; text: string }[] {
  return Object.keys(section)
    .filter((key) => !(key.endsWith('Set') && Object.hasOwn(section, key.slice(0, -3))))
    .map((key) => {
      const value = section[key];
      const set = section[`${key}Set`];
      const text =
        value === null && typeof set === 'boolean'
          ? set
            ? 'set (not shown)'
            : 'not set'
          : value === null || value === undefined || value === ''
            ? '–'
            : typeof value === 'boolean'
              ? value
                ? 'yes'
                : 'no'
              : typeof value === 'object'
                ? JSON.stringify(value)
                : String(value);
      const label = (declared && metaOf(declared, key)?.label) ?? key;
      return { key, label, text };
    });
}

/** The keys of a section's secret fields (passwords): stored sealed, never answered. */
/**
 * The body as the engine completes it on a later PUT: a secret left out keeps the stored one
 * (decisions.md), so it is parsed as set. Only for checking what an edit would send; the body sent
 * leaves the secret out.
 */
export function withKeptSecrets(section: Section, body: unknown): unknown {
  if (!isPlainObject(body)) return body;
  const kept = secretKeysOf(section).filter((key) => !Object.hasOwn(body, key));
  return { ...body, ...Object.fromEntries(kept.map((key) => [key, KEPT_SECRET])) };
}
/** What stands for a stored secret while an edit is checked; never sent. */
const KEPT_SECRET = 'kept-as-stored';

export function secretKeysOf(section: Section): string[] {
  return Object.keys(section.schema.shape).filter((key) => metaOf(section, key)?.kind === 'secret');
}

/** The field declarations of a section, in order, for forms and docs. */
export function fieldsOf(section: Section): { key: string; meta: FieldMeta }[] {
  return Object.keys(section.schema.shape).flatMap((key) => {
    const meta = metaOf(section, key);
    return meta ? [{ key, meta }] : [];
  });
}

/** Parses any body with a zod schema into the same problem shape the configuration sections use. */
export function parseWith<S extends z.ZodType>(
  schema: S,
  input: unknown,
  base = '',
): ParseResult<z.output<S>> {
  const result = schema.safeParse(input);
  if (result.success) return { ok: true, value: result.data };
  const problems = result.error.issues.flatMap((issue): Problem[] => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({
        pointer: pointerOf(base, [...issue.path, key]),
        received: showValue(valueAt(input, [...issue.path, key])),
        rule: 'a known key',
        message: `"${key}" is not a known key here.`,
      }));
    }
    const pointer = pointerOf(base, issue.path);
    const received = showValue(valueAt(input, issue.path));
    return [
      {
        pointer,
        received,
        rule: issue.message,
        message: `${pointer || '/'}: ${issue.message}; got ${received}.`,
      },
    ];
  });
  return { ok: false, problems };
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}
