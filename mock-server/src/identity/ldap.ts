// LDAP/AD with ldapts: test connection, search preview, sign-in by binding as the user (the password is never
// stored), and directory sync. Every value that comes from a user or the directory goes into a filter through
// ldapts' filter objects, which escape it (RFC 4515), so a name like `*)(uid=*` matches only itself.
import type * as LdaptsModule from 'ldapts';
import type { Client, Entry, Filter } from 'ldapts';
import type { AppContext } from '../context.ts';
import { AppError } from '../http/errors.ts';
import { open } from './secret-box.ts';
import type { LdapSettings } from '../db/identity-repo.ts';
import type { DirectoryGroupRef } from './group-mapping.ts';

const CONNECT_TIMEOUT_MS = 5000;
const OP_TIMEOUT_MS = 15000;
const PAGE_SIZE = 500;

/** A DN split into RDNs ("ou=a,dc=x" -> ["ou=a", "dc=x"]), honouring backslash escapes. */
export function splitDn(dn: string): string[] {
  const out: string[] = [];
  let cur = '';
  for (let i = 0; i < dn.length; i++) {
    const ch = dn[i]!;
    if (ch === '\\' && i + 1 < dn.length) {
      cur += ch + dn[i + 1];
      i++;
    } else if (ch === ',') {
      out.push(cur.trim());
      cur = '';
    } else {
      cur += ch;
    }
  }
  if (cur.trim() !== '') out.push(cur.trim());
  return out;
}

function unescapeValue(v: string): string {
  return v.replace(/\\([0-9a-fA-F]{2})/g, (_m, h: string) => String.fromCharCode(parseInt(h, 16))).replace(/\\(.)/g, '$1');
}

/** A DN in a form that compares equal however the directory spaced or cased it. */
export function dnKey(dn: string): string {
  return splitDn(dn).map((r) => r.replace(/\s*=\s*/, '=').toLowerCase()).join(',');
}

/**
 * The OUs between an entry and the base, from the top down, with the DN key of each: the department path of a user
 * `uid=a,ou=platform,ou=eng,ou=people,dc=x` under `ou=people,dc=x` is eng / platform.
 */
export function ouPath(entryDn: string, baseDn: string): { names: string[]; keys: string[] } {
  const rdns = splitDn(entryDn);
  const base = splitDn(baseDn).length;
  const between = rdns.slice(1, Math.max(1, rdns.length - base));
  const names: string[] = [];
  const keys: string[] = [];
  for (let i = between.length - 1; i >= 0; i--) {
    const rdn = between[i]!;
    const eq = rdn.indexOf('=');
    if (eq < 0 || rdn.slice(0, eq).trim().toLowerCase() !== 'ou') continue;
    names.push(unescapeValue(rdn.slice(eq + 1).trim()));
    keys.push(dnKey(rdns.slice(i + 1).join(',')));
  }
  return { names, keys };
}

/** A group's display name from its DN alone (the first RDN's value): for groups outside the group base. */
export function groupNameOf(dn: string): string {
  const first = splitDn(dn)[0] ?? '';
  const eq = first.indexOf('=');
  return unescapeValue(eq < 0 ? first : first.slice(eq + 1).trim());
}

/** A group a user's memberOf names, when no search under the group base found it: known by its DN only. */
export function groupByDn(dn: string): DirectoryGroupRef {
  const key = dnKey(dn);
  return { externalId: `dn:${key}`, name: groupNameOf(dn), matchKey: key };
}

export interface DirectoryUser {
  dn: string;
  /** entryUUID (OpenLDAP) or objectGUID (AD), else the DN: what stays when the entry moves. */
  externalId: string;
  userName: string;
  realName: string;
  email: string;
  department: string[];
  departmentKeys: string[];
  /** DN keys of the user's groups. */
  memberOf: string[];
  /** The same DNs as the directory spells them (for group names). */
  memberOfDns: string[];
}

type Ldapts = typeof LdaptsModule;
let loaded: Ldapts | undefined;
/** ldapts (about 10 MiB resident) loads with the first directory call: most servers never configure a directory. */
const loadLdapts = async (): Promise<Ldapts> => (loaded ??= await import('ldapts'));
/** The library, once a connection has loaded it: every filter and error check below follows #connect. */
const ldapts = (): Ldapts => {
  if (!loaded) throw new Error('ldapts is used before a directory connection loaded it');
  return loaded;
};

const text = (v: Entry[string] | undefined): string => {
  const first = Array.isArray(v) ? v[0] : v;
  return first === undefined ? '' : Buffer.isBuffer(first) ? first.toString('hex') : String(first);
};
const texts = (v: Entry[string] | undefined): string[] => (v === undefined ? [] : (Array.isArray(v) ? v : [v]).map((x) => (Buffer.isBuffer(x) ? x.toString('hex') : String(x))));

export class Directory {
  readonly #s: LdapSettings;
  readonly #password: string;

  constructor(settings: LdapSettings, secret: Buffer) {
    this.#s = settings;
    this.#password = open(secret, settings.bindPasswordSealed);
  }

  get settings(): LdapSettings {
    return this.#s;
  }

  async #connect(): Promise<Client> {
    const { Client } = await loadLdapts();
    const client = new Client({ url: this.#s.url, connectTimeout: CONNECT_TIMEOUT_MS, timeout: OP_TIMEOUT_MS, strictDN: false });
    try {
      if (this.#s.startTls) await client.startTLS({});
      return client;
    } catch (err) {
      await client.unbind().catch(() => undefined);
      throw unavailable(err);
    }
  }

  /** A client bound as the service account (anonymous when no bind DN is set). */
  async #service(): Promise<Client> {
    const client = await this.#connect();
    try {
      if (this.#s.bindDn !== '') await client.bind(this.#s.bindDn, this.#password);
      return client;
    } catch (err) {
      await client.unbind().catch(() => undefined);
      throw unavailable(err);
    }
  }

  #userFilter(extra?: Filter): Filter {
    const base = ldapts().FilterParser.parseString(this.#s.userFilter.trim() === '' ? '(objectClass=*)' : this.#s.userFilter);
    return extra ? new (ldapts().AndFilter)({ filters: [base, extra] }) : base;
  }

  #attributes(): string[] {
    const a = this.#s.attributes;
    return [a.userName, a.realName, a.email, a.memberOf, 'entryUUID', 'objectGUID'];
  }

  #toUser(e: Entry): DirectoryUser | null {
    const a = this.#s.attributes;
    const userName = text(e[a.userName]).trim();
    if (userName === '') return null;
    const { names, keys } = ouPath(e.dn, this.#s.userBaseDn);
    const uuid = text(e.entryUUID) || text(e.objectGUID);
    return {
      dn: e.dn,
      externalId: uuid !== '' ? `uuid:${uuid.toLowerCase()}` : `dn:${dnKey(e.dn)}`,
      userName,
      realName: text(e[a.realName]).trim() || userName,
      email: text(e[a.email]).trim(),
      department: names,
      departmentKeys: keys,
      memberOf: texts(e[a.memberOf]).map(dnKey),
      memberOfDns: texts(e[a.memberOf]),
    };
  }

  async #search(client: Client, filter: Filter, sizeLimit?: number): Promise<DirectoryUser[]> {
    const { searchEntries } = await client.search(this.#s.userBaseDn, {
      scope: 'sub',
      filter,
      attributes: this.#attributes(),
      ...(sizeLimit ? { sizeLimit } : { paged: { pageSize: PAGE_SIZE } }),
    });
    return searchEntries.map((e) => this.#toUser(e)).filter((u): u is DirectoryUser => u !== null);
  }

  isAdmin(u: DirectoryUser): boolean {
    return this.#s.adminGroup !== '' && u.memberOf.includes(dnKey(this.#s.adminGroup));
  }

  /** Binds with the settings and counts what the user filter finds (up to 1000). */
  async test(): Promise<{ ok: boolean; message: string; users?: number }> {
    let client: Client | undefined;
    try {
      client = await this.#service();
      const users = await this.#search(client, this.#userFilter(), 1000).catch((err: unknown) => {
        if ((err as { code?: number }).code === 4) return null; // size limit exceeded: there are more than 1000
        throw err;
      });
      return { ok: true, message: 'connected', users: users === null ? 1000 : users.length };
    } catch (err) {
      return { ok: false, message: err instanceof AppError ? err.message : describe(err) };
    } finally {
      await client?.unbind().catch(() => undefined);
    }
  }

  async preview(keyword: string | undefined): Promise<DirectoryUser[]> {
    const client = await this.#service();
    try {
      const extra = keyword ? new (ldapts().EqualityFilter)({ attribute: this.#s.attributes.userName, value: keyword }) : undefined;
      return await this.#search(client, this.#userFilter(extra), 50).catch((err: unknown) => {
        if ((err as { code?: number }).code === 4) return [];
        throw unavailable(err);
      });
    } finally {
      await client.unbind().catch(() => undefined);
    }
  }

  /** Every user the filter finds (paged). */
  async allUsers(): Promise<DirectoryUser[]> {
    const client = await this.#service();
    try {
      return await this.#search(client, this.#userFilter());
    } catch (err) {
      throw unavailable(err);
    } finally {
      await client.unbind().catch(() => undefined);
    }
  }

  /**
   * The groups under the group base DN (groupOfNames, groupOfUniqueNames, AD's group), by DN key: what mirrored
   * drive groups stand for. entryUUID/objectGUID keeps a renamed group the same drive group. None without a base.
   */
  async allGroups(): Promise<Map<string, DirectoryGroupRef>> {
    const out = new Map<string, DirectoryGroupRef>();
    if (this.#s.groupBaseDn.trim() === '') return out;
    const client = await this.#service();
    try {
      const { searchEntries } = await client.search(this.#s.groupBaseDn, {
        scope: 'sub',
        filter: '(|(objectClass=groupOfNames)(objectClass=groupOfUniqueNames)(objectClass=group))',
        attributes: ['cn', 'entryUUID', 'objectGUID'],
        paged: { pageSize: PAGE_SIZE },
      });
      for (const e of searchEntries) {
        const key = dnKey(e.dn);
        const uuid = text(e.entryUUID) || text(e.objectGUID);
        out.set(key, { externalId: uuid !== '' ? `uuid:${uuid.toLowerCase()}` : `dn:${key}`, name: text(e.cn).trim() || groupNameOf(e.dn), matchKey: key });
      }
      return out;
    } catch (err) {
      throw unavailable(err);
    } finally {
      await client.unbind().catch(() => undefined);
    }
  }

  /**
   * The directory user with this name if the password binds as them; null for a wrong password, an unknown or
   * ambiguous name. An empty password is refused before the directory sees it: LDAP treats a bind with a DN and no
   * password as an anonymous bind that succeeds.
   */
  async verify(userName: string, password: string): Promise<DirectoryUser | null> {
    if (password === '' || userName === '') return null;
    const client = await this.#service();
    let found: DirectoryUser[];
    try {
      found = await this.#search(client, this.#userFilter(new (ldapts().EqualityFilter)({ attribute: this.#s.attributes.userName, value: userName })), 2);
    } catch (err) {
      throw unavailable(err);
    } finally {
      await client.unbind().catch(() => undefined);
    }
    if (found.length !== 1) return null;
    const user = found[0]!;
    const asUser = await this.#connect();
    try {
      await asUser.bind(user.dn, password);
      return user;
    } catch (err) {
      if (err instanceof ldapts().InvalidCredentialsError) return null;
      throw unavailable(err);
    } finally {
      await asUser.unbind().catch(() => undefined);
    }
  }
}

function describe(err: unknown): string {
  if (err instanceof Error) return err.message.replace(/\s+/g, ' ').slice(0, 300);
  return String(err).slice(0, 300);
}

function unavailable(err: unknown): AppError {
  if (err instanceof AppError) return err;
  return new AppError('LDAP_UNAVAILABLE', `the directory refused or cannot be reached: ${describe(err)}`);
}

export function directoryOf(ctx: AppContext, settings: LdapSettings | undefined): Directory | null {
  return settings ? new Directory(settings, ctx.secret) : null;
}
