// Reading a parsed command's parameters: positional values matched to keywords, names checked as
// IBM i names, qualified names (LIB/OBJ) resolved against the job's current library.
import { atom, commandError, elements, type ClCommand, type ClValue } from './parse';

export interface CommandShape {
  positional: readonly string[];
  keywords: readonly string[];
  required?: readonly string[];
}

export class Args {
  private readonly values = new Map<string, ClValue>();

  constructor(
    readonly command: ClCommand,
    shape: CommandShape,
    readonly currentLibrary: string,
    /** Whether a name is a system name as the job's CCSID shows names (SimulatedIbmi.isSystemName). */
    private readonly isSystemName: (name: string, withDot: boolean) => boolean,
  ) {
    if (command.positional.length > shape.positional.length)
      throw commandError('CPD0003', `Maximum number of positional parameters exceeded.`);
    command.positional.forEach((v, i) => this.values.set(shape.positional[i] ?? '', v));
    for (const [k, v] of command.keywords) {
      if (!shape.keywords.includes(k) && !shape.positional.includes(k))
        throw commandError('CPD0043', `Keyword ${k} not valid for this command.`);
      this.values.set(k, v);
    }
    for (const r of shape.required ?? [])
      if (!this.values.has(r)) throw commandError('CPD0072', `Parameter ${r} required.`);
  }

  has = (k: string) => this.values.has(k);
  raw = (k: string) => this.values.get(k);
  list = (k: string) => elements(this.values.get(k));

  text(k: string, fallback: string): string {
    return atom(this.values.get(k)) ?? fallback;
  }

  special(k: string, allowed: readonly string[], fallback: string): string {
    const v = this.text(k, fallback);
    if (!allowed.includes(v))
      throw commandError('CPD0084', `Value '${v}' for parameter ${k} not a valid value.`);
    return v;
  }

  number(k: string, fallback: number | null): number | null {
    const v = atom(this.values.get(k));
    if (v === undefined) return fallback;
    if (!/^\d+$/.test(v)) return null;
    return Number(v);
  }

  /** `LIB/NAME` or `NAME`; *LIBL and *CURLIB mean the job's current library. */
  qualified(k: string, v: ClValue | undefined = this.values.get(k)): { library: string; name: string } {
    const text = atom(v);
    if (text === undefined) throw commandError('CPD0072', `Parameter ${k} required.`);
    const [lib, name] = text.includes('/') ? text.split('/') : ['*LIBL', text];
    const library = lib === '*LIBL' || lib === '*CURLIB' ? this.currentLibrary : (lib ?? '');
    return {
      library: this.checkName(library, k),
      name: name?.startsWith('*') ? name : this.checkName(name ?? '', k),
    };
  }

  /** A qualified name whose object may be generic (`ABC*`), as DSPFFD and DSPOBJD take it. */
  qualifiedGeneric(k: string): { library: string; name: string } {
    const text = atom(this.values.get(k));
    const generic = text !== undefined && /[^*/]\*$/.test(text);
    const found = this.qualified(
      k,
      generic ? { text: text.slice(0, -1), quoted: false } : this.values.get(k),
    );
    return generic ? { ...found, name: `${found.name}*` } : found;
  }

  name(k: string, fallback?: string): string {
    const v = atom(this.values.get(k)) ?? fallback;
    if (v === undefined) throw commandError('CPD0072', `Parameter ${k} required.`);
    return v.startsWith('*') ? v : this.checkName(v, k);
  }

  private checkName(name: string, parameter: string): string {
    if (!this.isSystemName(name, true))
      throw commandError('CPD0078', `Value '${name}' for parameter ${parameter} not a valid name.`);
    return name;
  }
}
