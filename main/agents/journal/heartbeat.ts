// The journal agent's heartbeat: a user entry (SNDJRNE, journal code U, entry type HB, no file) in
// each journal the agent reads, every heartbeatSeconds. DSPJRN selects it with the tables' own entries
// (JRNCDE (U *IGNFILSLT)), so it travels the path a change does: once a batch has read past it and
// committed at the target, the entry's own time (JOTSTP) measures the whole path on a quiet journal.
import { decodeText } from '../../../lib/ibmi/ccsid';
import { clName, IbmiError, type IbmiConnection } from '../../../lib/ibmi/connection';
import { HeartbeatRefused, type SourceHeartbeat } from '../source';
import type { JournalEntryRow } from './assemble';
import type { JournalName } from './reader';

export const HEARTBEAT_ENTRY_TYPE = 'HB';

/**
 * The entry's data: the agent's key in capitals, whose letters, digits, `/`, `-` and `_` are the same
 * bytes in every EBCDIC CCSID a job may run under (lower-case letters are not, in CCSID 290).
 */
export const heartbeatTag = (agentKey: string) => agentKey.toUpperCase();

export const heartbeatCommand = (j: JournalName, tag: string) =>
  `SNDJRNE JRN(${j.library}/${j.name}) TYPE(${HEARTBEAT_ENTRY_TYPE}) ENTDTA('${tag}')`;

/**
 * What gives the profile the heartbeat on a journal: *ADD with the *USE that DSPJRN needs, spelled out
 * (AUT takes *USE alone or a list). A private authority is all IBM i looks at once the profile has one,
 * so granting *OBJOPR *ADD alone to a profile that reads the journal by *PUBLIC would take DSPJRN away.
 */
export const heartbeatGrant = (j: JournalName, profile: string) =>
  `GRTOBJAUT OBJ(${j.library}/${j.name}) OBJTYPE(*JRN) USER(${profile}) AUT(*OBJOPR *READ *ADD *EXECUTE)`;

/** CPF9802: not authorized to the journal; CPF9820: to its library. */
const REFUSALS = ['CPF9802', 'CPF9820'];

export class JournalHeartbeat implements SourceHeartbeat {
  constructor(
    private readonly c: IbmiConnection,
    /** The journals the agent reads now (none before its tables are described). */
    private readonly journals: () => JournalName[],
    /** The data of its entries (heartbeatTag), by which the reader knows them. */
    readonly tag: string,
    private readonly profile: string,
    readonly everyMs: number,
  ) {}

  async beat(): Promise<void> {
    for (const j of this.journals()) {
      try {
        await this.c.command(heartbeatCommand(j, this.tag));
      } catch (error) {
        if (!(error instanceof IbmiError && REFUSALS.includes(error.messageId))) throw error;
        const grant = clName(this.profile) ? `Grant it: ${heartbeatGrant(j, this.profile)}` : '';
        throw new HeartbeatRefused(
          `The heartbeat is off: the user profile ${this.profile} may not send entries to journal ${j.library}/${j.name} ` +
            `(SNDJRNE needs *OBJOPR and *ADD on it; IBM i answered ${error.message}). ${grant}`.trim(),
        );
      }
    }
  }
}

/** Whether an entry is this agent's heartbeat: code U, type HB, its data the agent's tag. */
export function isOwnHeartbeat(e: JournalEntryRow, tag: string): boolean {
  if (e.code !== 'U' || e.type !== HEARTBEAT_ENTRY_TYPE) return false;
  // JOESD is as long as the longest entry read: the entry's own data, then padding.
  const data = e.imageLength !== undefined ? e.data.subarray(0, e.imageLength) : e.data;
  return decodeText(data, 37).replace(/[\0 ]+$/, '') === tag;
}
