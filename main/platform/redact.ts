// Hides a secret in a message a driver wrote. A short password ("ab") also occurs inside ordinary words
// ("table"): replacing every occurrence would mangle the message, so a short secret is replaced only
// where it stands alone (not joined to letters or digits); a longer one is replaced wherever it occurs.
export const REDACTED = '********';
/** From this length on a secret is not mistaken for part of a word. */
const ANYWHERE_FROM = 6;

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export function redactSecret(text: string, secret: string): string {
  if (!secret) return text;
  if (secret.length >= ANYWHERE_FROM) return text.replaceAll(secret, REDACTED);
  return text.replace(
    new RegExp(`(?<![\\p{L}\\p{N}])${escapeRegExp(secret)}(?![\\p{L}\\p{N}])`, 'gu'),
    REDACTED,
  );
}
