// Engine profiles of the app (name, base URL, token): a JSON file in the data folder, written atomically,
// readable by its owner only, tokens sealed by the secret box (safeStorage on the desktop).
import { readFileSync } from 'node:fs';
import { writeFileAtomic } from '../platform/atomicFile';
import { join } from 'node:path';
import { z } from 'zod';
import { idSchema } from '../../shared/controlApi';
import type { SecretBox } from '../platform/secretBox';

export const LOCAL_PROFILE_ID = 'local';
const FILE = 'profiles.json';

const storedProfileSchema = z.object({
  id: idSchema,
  name: z.string(),
  baseUrl: z.string(),
  tokenSealed: z.string().nullable(),
  /** The SHA-256 fingerprint of an https:// engine's certificate, pinned on first use. */
  certificatePin: z.string().nullable().optional(),
});
const fileSchema = z.object({ version: z.literal(1), profiles: z.array(storedProfileSchema) });
type StoredProfile = z.infer<typeof storedProfileSchema>;

export interface Profile {
  id: string;
  name: string;
  baseUrl: string;
  tokenSet: boolean;
  local: boolean;
  certificateFingerprint: string | null;
}

const toProfile = (p: StoredProfile): Profile => ({
  id: p.id,
  name: p.name,
  baseUrl: p.baseUrl,
  tokenSet: p.tokenSealed !== null,
  local: p.id === LOCAL_PROFILE_ID,
  certificateFingerprint: p.certificatePin ?? null,
});

export function createProfileStore(dataDir: string, secrets: SecretBox) {
  const path = join(dataDir, FILE);
  const context = (id: string) => `profile:${id}:token`;

  function read(): StoredProfile[] {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch {
      return [];
    }
    const parsed = fileSchema.safeParse(JSON.parse(text));
    if (!parsed.success)
      throw new Error(`The profile file ${path} is damaged; move it away to start afresh.`);
    return parsed.data.profiles;
  }

  function write(profiles: StoredProfile[]): void {
    writeFileAtomic(path, JSON.stringify({ version: 1, profiles }, null, 2));
  }

  const changed = new Set<(id: string) => void>();
  return {
    list: (): Profile[] => read().map(toProfile),
    get: (id: string): Profile | undefined => {
      const found = read().find((p) => p.id === id);
      return found && toProfile(found);
    },
    /**
     * Creates or replaces a profile; a token left out keeps the stored one. The pinned certificate stays
     * while the address does, unless the user forgets it.
     */
    save: async (input: {
      id: string;
      name: string;
      baseUrl: string;
      token?: string;
      forgetCertificate?: boolean;
    }): Promise<Profile> => {
      const profiles = read();
      const existing = profiles.find((p) => p.id === input.id);
      const tokenSealed = input.token
        ? await secrets.seal(input.token, context(input.id))
        : (existing?.tokenSealed ?? null);
      const keepPin = existing?.baseUrl === input.baseUrl && !input.forgetCertificate;
      const next: StoredProfile = {
        id: input.id,
        name: input.name,
        baseUrl: input.baseUrl,
        tokenSealed,
        certificatePin: keepPin ? (existing.certificatePin ?? null) : null,
      };
      write(existing ? profiles.map((p) => (p.id === input.id ? next : p)) : [...profiles, next]);
      for (const listener of changed) listener(input.id);
      return toProfile(next);
    },
    /** Pins the certificate an https:// engine presented on first use. */
    pin: (id: string, fingerprint256: string): void => {
      write(read().map((p) => (p.id === id ? { ...p, certificatePin: fingerprint256 } : p)));
    },
    remove: (id: string): boolean => {
      const profiles = read();
      const rest = profiles.filter((p) => p.id !== id);
      write(rest);
      for (const listener of changed) listener(id);
      return rest.length < profiles.length;
    },
    /** `listener` hears the id of each profile saved or removed (a pin is no change of the engine). */
    onChange: (listener: (id: string) => void): void => {
      changed.add(listener);
    },
    token: async (id: string): Promise<string | undefined> => {
      const found = read().find((p) => p.id === id);
      return found?.tokenSealed ? secrets.open(found.tokenSealed, context(id)) : undefined;
    },
  };
}

export type ProfileStore = ReturnType<typeof createProfileStore>;
