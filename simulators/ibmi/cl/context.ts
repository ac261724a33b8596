// What a command runs with, and the file lookup every file command shares.
import type { Right } from '../system/authority';
import type { PhysicalFile } from '../system/files';
import { cpf } from '../system/messages';
import type { Job, SimulatedIbmi } from '../system/simulatedIbmi';

export interface CommandContext {
  system: SimulatedIbmi;
  job: Job;
  currentLibrary: string;
}

/** A file the job reaches with `needed` rights on it (CPF9812 missing, CPF9802 not authorized). */
export function useFile(
  ctx: CommandContext,
  library: string,
  name: string,
  needed: readonly Right[],
): PhysicalFile {
  ctx.system.useLibrary(ctx.job, library);
  const file = ctx.system.file(library, name);
  if (!file) throw cpf('CPF9812', name, library);
  if (!ctx.system.can(ctx.job, file.authority, needed)) throw cpf('CPF9802', '', name, library);
  return file;
}
