// Accounts and departments that stand for external identities (single sign-on and the directory), shared by OIDC
// just-in-time creation and LDAP sign-in and sync.
import { randomBytes } from 'node:crypto';
import type { Db } from '../db/sql/tx.ts';
import { atomically } from '../db/sql/tx.ts';
import { createDept, getDept, ROOT_DEPT_ID } from '../db/departments-repo.ts';
import { createUser, getUserByName, type User } from '../db/users-repo.ts';
import { authSourceOf, deptByExternal, linkExternal, setDeptExternal, updateExternalUser, userByExternal } from '../db/identity-repo.ts';
import { nameKey } from '../files/names.ts';
import { AppError } from '../http/errors.ts';

export interface ExternalIdentity {
  source: 'oidc' | 'ldap';
  externalId: string;
  userName: string;
  realName: string;
  email: string;
  deptId: string | null;
  isAdmin: boolean;
}

/** The child of `parentId` named `name` (case-insensitively), if any. */
async function childNamed(db: Db, parentId: string, name: string): Promise<string | undefined> {
  const r = await db.selectFrom('departments').select('id').where('parent_id', '=', parentId).where('name_key', '=', nameKey(name)).executeTakeFirst();
  return r?.id;
}

/**
 * The department at `names` under the root (['Engineering', 'Platform']), created where missing. With `externalIds`
 * (directory OUs, one per name), a department is found by its OU first, so a renamed OU keeps its department.
 */
export async function ensureDeptPath(db: Db, names: readonly string[], externalIds?: readonly string[]): Promise<string> {
  let parent = ROOT_DEPT_ID;
  for (let i = 0; i < names.length; i++) {
    const name = names[i]!.trim();
    if (name === '') continue;
    const ext = externalIds?.[i];
    let id = ext ? (await deptByExternal(db, ext))?.id : undefined;
    id ??= await childNamed(db, parent, name);
    if (!id) {
      try {
        id = (await createDept(db, { name, parentId: parent })).id;
      } catch (err) {
        // Another sign-in or a sync made it meanwhile.
        if (!(err instanceof AppError && err.code === 'NAME_EXISTS')) throw err;
        id = await childNamed(db, parent, name);
        if (!id) throw err;
      }
    }
    if (ext && (await getDept(db, id)) && !(await deptByExternal(db, ext))) await setDeptExternal(db, id, ext);
    parent = id;
  }
  return parent;
}

/** What happened to the account: made now, changed, or already as the identity says. */
export type Provisioned = { user: User; outcome: 'added' | 'updated' | 'same' };

/**
 * Finds the account of an external identity, or creates it (just in time). An existing account of the same name
 * that is not linked to this identity is never taken over: an identity provider that may assert any name must not
 * become a way into a local administrator's account. Its stored password is random and never used.
 */
export async function provision(
  db: Db, id: ExternalIdentity, opts: { updateAdmin: boolean; returning?: (user: User, externalId: string | null, trx: Db) => Promise<boolean> },
): Promise<Provisioned> {
  return atomically(db, async (trx) => {
    let linked = await userByExternal(trx, id.source, id.externalId);
    if (!linked && opts.returning) {
      // A user deleted from the directory and added again comes back as a new entry (a new entryUUID): the account
      // of the same name is theirs when the caller knows it stands for an entry that left (see `returning`).
      const same = await getUserByName(trx, id.userName);
      const facts = same ? await authSourceOf(trx, same.id) : undefined;
      if (same && facts?.source === id.source && (await opts.returning(same, facts.externalId, trx))) {
        await linkExternal(trx, same.id, id.source, id.externalId);
        linked = same;
      }
    }
    if (linked) {
      const facts = await authSourceOf(trx, linked.id);
      const changed = await updateExternalUser(trx, linked, facts?.email ?? '', {
        realName: id.realName,
        email: id.email,
        deptId: id.deptId,
        ...(opts.updateAdmin ? { isAdmin: id.isAdmin } : {}),
      });
      const user = changed ? ((await userByExternal(trx, id.source, id.externalId)) as User) : linked;
      return { user, outcome: changed ? 'updated' : 'same' };
    }
    if (await getUserByName(trx, id.userName)) {
      throw new AppError('SSO_FAILED', `an account named ${id.userName} already exists and is not linked to this identity`);
    }
    const user = await createUser(trx, {
      userName: id.userName,
      password: randomBytes(32).toString('base64url'),
      skipPolicy: true,
      realName: id.realName || id.userName,
      deptId: id.deptId,
      isAdmin: id.isAdmin,
      email: id.email,
    });
    await linkExternal(trx, user.id, id.source, id.externalId);
    return { user, outcome: 'added' };
  });
}
