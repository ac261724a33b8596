// What each data type file declares: its TYPE_INFO, its value both ways, and the tokens a client may
// send for it in an RPC parameter (MS-TDS 2.2.5.4, 2.2.5.5). values.ts keeps one table of them.
import type { Cursor } from './cursor';
import type { SqlType, SqlValue } from './sqlTypes';

/** The members of a union of types whose name is among N, each narrowed to those names. */
type NamedIn<T, N> = T extends { name: infer M }
  ? [Extract<M, N>] extends [never]
    ? never
    : Omit<T, 'name'> & { name: Extract<M, N> }
  : never;

/** A type of SqlType by its name (or names, for a family sharing one wire form). */
export type Named<N extends SqlType['name']> = NamedIn<SqlType, N>;

export interface DataType<T extends SqlType> {
  /** Its TYPE_INFO in a COLMETADATA or RETURNVALUE token. */
  info(t: T): Buffer;
  /** A value as it follows its TYPE_INFO in a ROW or RETURNVALUE token. */
  write(t: T, value: SqlValue): Buffer;
  /** A parameter value that follows its TYPE_INFO. */
  read(t: T, c: Cursor): SqlValue;
  /** The TYPE_INFO tokens a client sends for it, each read (after its id) into the type. */
  tokens: Readonly<Record<number, (c: Cursor, id: number) => T>>;
}
