// Object authority as IBM i resolves it ("How the system checks authority"): *ALLOBJ special
// authority, then the owner, then a private authority for the user, then one for the user's group
// profile, then *PUBLIC. Authority is held as specific rights; *ALL, *CHANGE, *USE and *EXCLUDE are
// the named sets of them.
export const RIGHTS = [
  '*OBJOPR',
  '*OBJMGT',
  '*OBJEXIST',
  '*OBJALTER',
  '*OBJREF',
  '*READ',
  '*ADD',
  '*UPD',
  '*DLT',
  '*EXECUTE',
] as const;
export type Right = (typeof RIGHTS)[number];
export type AuthorityName = '*ALL' | '*CHANGE' | '*USE' | '*EXCLUDE';

export const NAMED: Record<AuthorityName, readonly Right[]> = {
  '*ALL': RIGHTS,
  '*CHANGE': ['*OBJOPR', '*READ', '*ADD', '*UPD', '*DLT', '*EXECUTE'],
  '*USE': ['*OBJOPR', '*READ', '*EXECUTE'],
  '*EXCLUDE': [],
};

export interface ObjectAuthority {
  owner: string;
  public: ReadonlySet<Right>;
  /** Private authorities by user or group profile. */
  private: Map<string, ReadonlySet<Right>>;
}

export const rights = (name: AuthorityName | readonly Right[]): ReadonlySet<Right> =>
  new Set(typeof name === 'string' ? NAMED[name] : name);

export function newAuthority(owner: string, publicAuthority: AuthorityName = '*CHANGE'): ObjectAuthority {
  return { owner, public: rights(publicAuthority), private: new Map() };
}

export interface Principal {
  name: string;
  group: string | null;
  specialAuthorities: readonly string[];
}

/** The rights `who` holds on an object. */
export function effectiveRights(who: Principal, auth: ObjectAuthority): ReadonlySet<Right> {
  if (who.specialAuthorities.includes('*ALLOBJ') || auth.owner === who.name) return rights('*ALL');
  const own = auth.private.get(who.name);
  if (own) return own;
  const group = who.group ? auth.private.get(who.group) : undefined;
  if (group) return group;
  if (who.group && auth.owner === who.group) return rights('*ALL');
  return auth.public;
}

export const holds = (who: Principal, auth: ObjectAuthority, needed: readonly Right[]) => {
  const have = effectiveRights(who, auth);
  return needed.every((r) => have.has(r));
};

/** The name a set of rights goes by, for OBJECT_PRIVILEGES' OBJECT_AUTHORITY. */
export function authorityName(set: ReadonlySet<Right>): string {
  for (const name of ['*ALL', '*CHANGE', '*USE', '*EXCLUDE'] as const) {
    const named = NAMED[name];
    if (named.length === set.size && named.every((r) => set.has(r))) return name;
  }
  return 'USER DEFINED';
}
