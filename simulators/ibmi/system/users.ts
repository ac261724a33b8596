// User profiles (CRTUSRPRF's attributes that USER_INFO shows) and sign-on as the host servers check it.
import { cpf } from './messages';
import type { Principal } from './authority';

export interface UserProfile {
  name: string;
  password: string;
  userClass: '*USER' | '*SYSOPR' | '*PGMR' | '*SECADM' | '*SECOFR';
  groupProfile: string | null;
  status: '*ENABLED' | '*DISABLED';
  /** Days, or *NOMAX (-1 in USER_INFO) or *SYSVAL (0). */
  passwordExpirationInterval: number | '*NOMAX' | '*SYSVAL';
  specialAuthorities: string[];
  limitCapabilities: '*NO' | '*PARTIAL' | '*YES';
  text?: string;
}

/** The profile source-agents.md suggests for the journal agent. */
export function suggestedProfile(name: string, password: string): UserProfile {
  return {
    name,
    password,
    userClass: '*USER',
    groupProfile: 'QPGMR',
    status: '*ENABLED',
    passwordExpirationInterval: '*NOMAX',
    specialAuthorities: [],
    limitCapabilities: '*NO',
  };
}

/** The security officer that owns the system's own objects. */
export const QSECOFR: UserProfile = {
  name: 'QSECOFR',
  password: 'QSECOFR',
  userClass: '*SECOFR',
  groupProfile: null,
  status: '*ENABLED',
  passwordExpirationInterval: '*SYSVAL',
  specialAuthorities: [
    '*ALLOBJ',
    '*AUDIT',
    '*IOSYSCFG',
    '*JOBCTL',
    '*SAVSYS',
    '*SECADM',
    '*SERVICE',
    '*SPLCTL',
  ],
  limitCapabilities: '*NO',
};

/** Group profile QPGMR, as IBM ships it. */
export const QPGMR: UserProfile = {
  name: 'QPGMR',
  password: '',
  userClass: '*PGMR',
  groupProfile: null,
  status: '*ENABLED',
  passwordExpirationInterval: '*SYSVAL',
  specialAuthorities: ['*JOBCTL', '*SAVSYS'],
  limitCapabilities: '*NO',
};

export const principal = (u: UserProfile): Principal => ({
  name: u.name,
  group: u.groupProfile,
  specialAuthorities: u.specialAuthorities,
});

export function signOn(users: ReadonlyMap<string, UserProfile>, name: string, password: string): UserProfile {
  const user = users.get(name.toUpperCase());
  if (!user) throw cpf('CPF2204', name.toUpperCase());
  if (user.status === '*DISABLED') throw cpf('CPF22E3', user.name);
  // IBM i compares passwords case-sensitively at QPWDLVL 2 and 3.
  if (user.password === '' || user.password !== password) throw cpf('CPF22E2', user.name);
  return user;
}

export const expirationIntervalValue = (u: UserProfile): number =>
  u.passwordExpirationInterval === '*NOMAX'
    ? -1
    : u.passwordExpirationInterval === '*SYSVAL'
      ? 0
      : u.passwordExpirationInterval;
