// Hides secrets in text and values. A short password ("ab") also occurs inside ordinary words
// ("table"): replacing every occurrence would mangle the message, so a short secret is replaced only
// where it stands alone (not joined to letters or digits); a longer one is replaced wherever it occurs.
// A secret is searched in every form it takes in text: as typed, inside a JSON string (where `"` and
// `\` are escaped, and other writers escape non-ASCII as \u…), URL-encoded, and escaped for HTML.
import { escapeHtml } from './html';

export const REDACTED = '********';
/** From this length on a secret is not mistaken for part of a word. */
const ANYWHERE_FROM = 6;

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function replaceSecret(text: string, secret: string, mark: string): string {
  if (!secret) return text;
  if (secret.length >= ANYWHERE_FROM) return text.replaceAll(secret, mark);
  return text.replace(new RegExp(`(?<![\\p{L}\\p{N}])${escapeRegExp(secret)}(?![\\p{L}\\p{N}])`, 'gu'), mark);
}

export function redactSecret(text: string, secret: string): string {
  return replaceSecret(text, secret, REDACTED);
}

/** The forms a secret takes in text: as typed, in a JSON string (as written here and ASCII-only), URL-encoded. */
export function secretForms(secret: string): string[] {
  if (!secret) return [];
  const inJson = JSON.stringify(secret).slice(1, -1);
  const asciiJson = inJson.replace(
    /[\u007f-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  const forms = [
    secret,
    inJson,
    asciiJson,
    asciiJson.replace(/\\u([0-9a-f]{4})/g, (_, h: string) => `\\u${h.toUpperCase()}`),
  ];
  forms.push(encodeURIComponent(secret), encodeURIComponent(secret).replaceAll('%20', '+'));
  // In an HTML page (the readiness report) as an escaper writes it.
  forms.push(escapeHtml(secret));
  return [...new Set(forms)];
}

/** `text` with every form of every secret replaced by `mark`: longest first, so a secret holding another goes whole. */
export function scrubText(text: string, secrets: readonly string[], mark = REDACTED): string {
  const forms = [...new Set(secrets.flatMap(secretForms))].sort((a, b) => b.length - a.length);
  return forms.reduce((out, form) => replaceSecret(out, form, mark), text);
}

/**
 * A value with every string in it (names of members too) scrubbed, before it is serialised: a secret
 * is found as it is, not as an encoder escaped it.
 */
export function scrubValue(value: unknown, secrets: readonly string[], mark = REDACTED): unknown {
  if (typeof value === 'string') return scrubText(value, secrets, mark);
  if (Array.isArray(value)) return value.map((v) => scrubValue(v, secrets, mark));
  if (value && typeof value === 'object' && !(value instanceof Date))
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [scrubText(k, secrets, mark), scrubValue(v, secrets, mark)]),
    );
  return value;
}
