// Duplicate member names in a JSON text. JSON.parse keeps the last of two equal names silently, while
// another reader of the same body (a proxy, an audit log) may keep the first: a body is refused rather
// than read one way here and another way there (RFC 8259 §4: names SHOULD be unique).

/** A member an object names twice: its name, and the JSON Pointer (RFC 6901) of that object. */
export interface DuplicateMember {
  member: string;
  pointer: string;
}

interface Frame {
  /** The object's member names so far; undefined for an array. */
  names?: Set<string>;
  pointer: string;
  /** In an object: the next string is a name (after '{' or ','). */
  nameNext: boolean;
  /** The member or element being read: its name, or its index in an array. */
  current: string;
  index: number;
}

export const escapePointer = (name: string) => name.replaceAll('~', '~0').replaceAll('/', '~1');

/**
 * The first member named twice in one object of `text`, compared after unescaping ("a" and "\u0061"
 * are one name); null when none. `text` must be JSON that JSON.parse accepts.
 */
export function duplicateMember(text: string): DuplicateMember | null {
  const stack: Frame[] = [];
  const child = (): string => {
    const top = stack.at(-1);
    if (!top) return '';
    return `${top.pointer}/${top.names ? escapePointer(top.current) : String(top.index)}`;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      let end = i + 1;
      while (text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
      const top = stack.at(-1);
      if (top?.names && top.nameNext) {
        const name = JSON.parse(text.slice(i, end + 1)) as string;
        if (top.names.has(name)) return { member: name, pointer: top.pointer };
        top.names.add(name);
        top.current = name;
        top.nameNext = false;
      }
      i = end;
    } else if (c === '{' || c === '[') {
      const pointer = child();
      stack.push({
        names: c === '{' ? new Set() : undefined,
        pointer,
        nameNext: c === '{',
        current: '',
        index: 0,
      });
    } else if (c === '}' || c === ']') stack.pop();
    else if (c === ',') {
      const top = stack.at(-1);
      if (top?.names) top.nameNext = true;
      else if (top) top.index++;
    }
  }
  return null;
}

/** The refusal in words: the name, where, and what to do. */
export const duplicateMemberText = (d: DuplicateMember): string =>
  `The member "${d.member}" appears twice in the object at ${d.pointer === '' ? 'the top of the body' : d.pointer}: send each member once, since readers of JSON disagree on which value counts.`;
