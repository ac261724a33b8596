// DDS source lives where IBM i keeps it: rows of a source physical file member (SRCSEQ, SRCDAT, SRCDTA).
import { cpf } from '../system/messages';
import { q } from '../system/files';
import type { SimulatedIbmi } from '../system/simulatedIbmi';
import type { CommandContext } from './context';

export function sourceText(c: CommandContext, library: string, file: string, member: string): string {
  c.system.useLibrary(c.job, library);
  const src = c.system.file(library, file);
  if (!src) throw cpf('CPF9812', file, library);
  if (!c.system.can(c.job, src.authority, ['*OBJOPR', '*READ'])) throw cpf('CPF9802', '', file, library);
  const m = src.members.find((x) => x.name === member);
  if (!m) throw cpf('CPF9815', '', file, library, '', member);
  const rows = c.system.db.prepare(`SELECT SRCDTA FROM ${q(m.table)} ORDER BY SRCSEQ, __RRN`).all() as {
    SRCDTA: string;
  }[];
  return rows.map((r) => r.SRCDTA).join('\n');
}

/** Puts DDS text into a source member, as an editor would (the sandbox's stand-in for SEU or RDi). */
export function putSource(
  system: SimulatedIbmi,
  library: string,
  file: string,
  member: string,
  text: string,
): void {
  const src = system.file(library, file);
  if (!src) throw cpf('CPF9812', file, library);
  const m = src.members.find((x) => x.name === member) ?? system.addMember(src, member);
  system.db.exec(`DELETE FROM ${q(m.table)}`);
  const insert = system.db.prepare(
    `INSERT INTO ${q(m.table)} (__RRN, SRCSEQ, SRCDAT, SRCDTA) VALUES (?, ?, 0, ?)`,
  );
  text.split(/\r?\n/).forEach((line, i) => insert.run(i + 1, i + 1, line));
  m.nextRrn = text.split(/\r?\n/).length + 1;
}
