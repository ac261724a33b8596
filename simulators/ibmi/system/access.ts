// Authority checks: object authorities, libraries the job may use, and private authorities to CL commands.
import { holds, type ObjectAuthority, type Right } from './authority';
import { cpf } from './messages';
import { principal } from './users';

import type { Job, Library, SystemState } from './state';

export function can(s: SystemState, job: Job, auth: ObjectAuthority, needed: readonly Right[]): boolean {
  return holds(principal(job.profile), auth, needed);
}

/** The library, which the job may use (*EXECUTE), or CPF9810 / CPF9820. */
export function useLibrary(
  s: SystemState,
  job: Job,
  name: string,
  needed: readonly Right[] = ['*EXECUTE'],
): Library {
  const lib = s.libraries.get(name);
  if (!lib) throw cpf('CPF9810', name);
  if (!s.can(job, lib.authority, needed))
    throw needed.includes('*ADD') ? cpf('CPF2182', name) : cpf('CPF9820', name);
  return lib;
}

export function command(s: SystemState, job: Job, name: string): void {
  const auth = s.commands.get(name);
  if (auth && !s.can(job, auth, ['*OBJOPR', '*EXECUTE'])) throw cpf('CPF9802', name, 'QSYS');
}
