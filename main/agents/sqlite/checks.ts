// Checks of a SQLite target: can the engine create and write the file?
import { access, stat } from 'node:fs/promises';
import { constants } from 'node:fs';
import { dirname } from 'node:path';
import type { SqliteHostCredentials } from '../../../shared/agents/targets';
import type { CheckResult } from '../../../shared/controlApi';
import { failed, passed } from '../checkResults';

export async function checkSqliteTarget({ path }: SqliteHostCredentials): Promise<CheckResult[]> {
  if (!path)
    return [
      passed(
        'target-writable',
        'The replica goes to <data folder>/replicas/<pipeline id>.sqlite, which the engine owns.',
      ),
    ];
  try {
    // The nearest folder that exists must be a folder the engine may write in (the rest it creates).
    let folder = dirname(path);
    while (!(await stat(folder).catch(() => undefined))) folder = dirname(folder);
    if (!(await stat(folder)).isDirectory())
      throw Object.assign(new Error('not a folder'), { code: 'ENOTDIR' });
    await access(folder, constants.W_OK);
    return [passed('target-writable', `The engine can write ${path}.`)];
  } catch (error) {
    return [
      failed(
        'target-writable',
        `The engine cannot write in ${dirname(path)} (${(error as NodeJS.ErrnoException).code ?? 'error'}).`,
        'Choose a path in a folder the engine may create files in.',
      ),
    ];
  }
}
