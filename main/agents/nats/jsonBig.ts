// JSON as a Debezium producer writes it, read without losing an int64: an integer literal beyond
// JavaScript's safe range becomes a bigint (JSON.parse would round it). Strict JSON otherwise; the
// error names the offset.
export type BigJson = null | boolean | number | bigint | string | BigJson[] | { [k: string]: BigJson };

/** A run of digits that may be an integer literal past 2^53 (16 digits is the shortest that can). */
const LONG_DIGITS = /-?\d{16,}/g;
const SPACE = ' \t\n\r';

const charBefore = (text: string, at: number) => {
  while (at > 0 && SPACE.includes(text[at - 1] as string)) at--;
  return text[at - 1];
};
const charAfter = (text: string, at: number) => {
  while (at < text.length && SPACE.includes(text[at] as string)) at++;
  return text[at];
};

/**
 * The text with each long integer value written as a string marked by U+0001 (escaped, as JSON wants
 * it), or null when it has none. A run of digits counts where a value stands (after ":", "[" or ","
 * and before ",", "]" or "}"); should such a run be inside a string, the quote put before it ends that
 * string and the backslash after it cannot stand outside one, so JSON.parse refuses the text.
 */
function markLongIntegers(text: string): string | null {
  LONG_DIGITS.lastIndex = 0;
  let out = '';
  let from = 0;
  for (let m = LONG_DIGITS.exec(text); m; m = LONG_DIGITS.exec(text)) {
    const end = m.index + m[0].length;
    const before = charBefore(text, m.index);
    const after = charAfter(text, end);
    if (
      (before === ':' || before === '[' || before === ',') &&
      (after === ',' || after === ']' || after === '}')
    ) {
      out += `${text.slice(from, m.index)}"\\u0001${m[0]}"`;
      from = end;
    }
  }
  return from === 0 ? null : out + text.slice(from);
}

/** The marked strings made numbers again: a bigint past 2^53, a number within it. */
function unmark(v: BigJson): BigJson {
  if (typeof v === 'string') {
    if (v.charCodeAt(0) !== 1) return v;
    const n = Number(v.slice(1));
    return Number.isSafeInteger(n) ? n : BigInt(v.slice(1));
  }
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) v[i] = unmark(v[i] as BigJson);
    return v;
  }
  for (const key of Object.keys(v)) v[key] = unmark(v[key] as BigJson);
  return v;
}

export function parseBigJson(text: string): BigJson {
  // JSON.parse, three times as fast as reading by hand (events come by the thousand a second), with
  // each long integer handed to it as a marked string. A text that may hold the mark itself, or that
  // JSON.parse refuses, is read by hand, whose error names the offset.
  if (!text.includes('\u0001') && !/\\u0001/i.test(text)) {
    try {
      const marked = markLongIntegers(text);
      return marked === null ? (JSON.parse(text) as BigJson) : unmark(JSON.parse(marked) as BigJson);
    } catch {
      // Read again below.
    }
  }
  return parseSlowly(text);
}

function parseSlowly(text: string): BigJson {
  let at = 0;
  const fail = (what: string): never => {
    throw new SyntaxError(`${what} at offset ${at} of the event's JSON.`);
  };
  const space = () => {
    while (at < text.length && ' \t\n\r'.includes(text[at] as string)) at++;
  };
  const value = (): BigJson => {
    space();
    const c = text[at];
    if (c === '{') {
      at++;
      const out: Record<string, BigJson> = {};
      space();
      if (text[at] === '}') return (at++, out);
      for (;;) {
        space();
        if (text[at] !== '"') fail('A key was expected');
        const key = string();
        space();
        if (text[at++] !== ':') fail('":" was expected');
        const read = value();
        // As JSON.parse does: "__proto__" is a key like any other, never the object's prototype.
        if (key === '__proto__')
          Object.defineProperty(out, key, {
            value: read,
            enumerable: true,
            writable: true,
            configurable: true,
          });
        else out[key] = read;
        space();
        const next = text[at++];
        if (next === '}') return out;
        if (next !== ',') fail('"," or "}" was expected');
      }
    }
    if (c === '[') {
      at++;
      const out: BigJson[] = [];
      space();
      if (text[at] === ']') return (at++, out);
      for (;;) {
        out.push(value());
        space();
        const next = text[at++];
        if (next === ']') return out;
        if (next !== ',') fail('"," or "]" was expected');
      }
    }
    if (c === '"') return string();
    if (text.startsWith('true', at)) return ((at += 4), true);
    if (text.startsWith('false', at)) return ((at += 5), false);
    if (text.startsWith('null', at)) return ((at += 4), null);
    const m = /^-?(?:0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(at, at + 400));
    if (!m) return fail('A value was expected');
    at += m[0].length;
    if (m[1] === undefined && m[2] === undefined) {
      const n = Number(m[0]);
      return Number.isSafeInteger(n) ? n : BigInt(m[0]);
    }
    return Number(m[0]);
  };
  const string = (): string => {
    // From the opening quote to its closing one, escapes and all, read by JSON.parse itself.
    const start = at;
    at++;
    while (at < text.length && text[at] !== '"') at += text[at] === '\\' ? 2 : 1;
    if (at >= text.length) fail('A string does not end');
    at++;
    return JSON.parse(text.slice(start, at)) as string;
  };
  const out = value();
  space();
  if (at !== text.length) fail('Text after the value');
  return out;
}
