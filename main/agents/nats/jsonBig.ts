// JSON as a Debezium producer writes it, read without losing an int64: an integer literal beyond
// JavaScript's safe range becomes a bigint (JSON.parse would round it). Strict JSON otherwise; the
// error names the offset.
export type BigJson = null | boolean | number | bigint | string | BigJson[] | { [k: string]: BigJson };

export function parseBigJson(text: string): BigJson {
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
        out[key] = value();
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
