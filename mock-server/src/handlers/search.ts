// Search (issue #16 item 5): names in every space the caller may read, and the user and group pickers.
//
// search-repo narrows candidates to the caller's spaces in SQL; the access gate (checkAccess, `view`) then decides
// on each candidate row, so a role or grant that hides an item inside a readable space hides it here too. A page
// short of refused rows reads on until it is full.
import type { AppContext, Handlers } from '../context.ts';
import { ok } from '../http/envelope.ts';
import { AppError } from '../http/errors.ts';
import type { InstanceRow } from '../db/instances-repo.ts';
import { deptChainOf } from '../db/roles-repo.ts';
import { countMatches, readableSpaces, searchGroups, searchIds, searchUsers, type SearchFilters, type SearchPosition } from '../db/search-repo.ts';
import { checkAccess } from '../files/access-gate.ts';
import { callerOf } from '../files/access.ts';
import { instanceView, viewsOf } from '../files/wire.ts';
import type { Space } from '../db/quota.ts';
import { personalise } from './labels.ts';

const KIND_OF_TYPE: Record<string, Space['kind']> = { '1': 'user', '2': 'group', '3': 'dept' };

/** A search cursor is only a position in name order (access is decided on every page), so it is not signed. */
function encodeCursor(p: SearchPosition): string {
  return Buffer.from(JSON.stringify([p.nameKey, p.id])).toString('base64url');
}

function decodeCursor(cursor: string): SearchPosition {
  try {
    const v: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(v) && v.length === 2 && typeof v[0] === 'string' && typeof v[1] === 'string') return { nameKey: v[0], id: v[1] };
  } catch {
    // answered below
  }
  throw new AppError('BAD_REQUEST', 'the cursor is not one this search returned');
}

export function searchHandlers(ctx: AppContext): Handlers {
  const { db } = ctx;

  /** Views of rows whose ancestors are in `loaded` (the gate's read), reading only a path it lacks. */
  async function viewsFrom(rows: InstanceRow[], loaded: ReadonlyMap<string, InstanceRow>) {
    const out = [];
    for (const row of rows) {
      const names: string[] = [];
      let at = row.parentId === null ? undefined : loaded.get(row.parentId);
      while (at && at.parentId !== null) {
        names.unshift(at.name);
        at = loaded.get(at.parentId);
      }
      out.push(at || row.parentId === null ? instanceView(row, names) : (await viewsOf(db, [row]))[0]!);
    }
    return out;
  }
  return {
    // The gate checked `view` on query.parentId.
    async searchPage(req) {
      const user = callerOf(req.user);
      const q = req.query;
      const pageNo = q.pageNo ?? 1;
      const pageSize = q.pageSize ?? 20;
      let spaces = await readableSpaces(db, user.userId, await deptChainOf(db, user.deptId));
      if (q.instanceType) spaces = spaces.filter((s) => s.kind === KIND_OF_TYPE[q.instanceType!]);
      const f: SearchFilters = {
        keyword: q.keyword?.trim() || undefined,
        fileFilter: q.fileFilter, minSize: q.minSize, maxSize: q.maxSize, updateFrom: q.updateFrom, updateTo: q.updateTo,
        labelId: q.labelId, labelOwner: user.userId, ownerId: q.ownerId, underFolder: q.parentId || undefined,
      };
      // Counted first: a keyword that matches more than can be counted is common, and its page walks the name index.
      const count = await countMatches(db, spaces, f);
      const walk = !count.exact;
      const rows: InstanceRow[] = [];
      const loaded = new Map<string, InstanceRow>();
      let after = q.cursor ? decodeCursor(q.cursor) : undefined;
      let offset = after ? 0 : (pageNo - 1) * pageSize;
      let more = false;
      // Each round reads one row past the page, to know whether another page follows.
      for (let round = 0; round < 20 && rows.length < pageSize; round++) {
        const ids = await searchIds(db, spaces, f, { after, offset, limit: pageSize - rows.length + 1, walk });
        more = ids.length > pageSize - rows.length;
        const take = ids.slice(0, pageSize - rows.length);
        // The gate reads each candidate with its ancestors: the rows and their paths come from there.
        const refused = await checkAccess(db, user, 'view', take.map((p) => p.id), loaded);
        for (const p of take) {
          const row = loaded.get(p.id);
          if (row && !refused.has(p.id)) rows.push(row);
        }
        if (!more) break;
        after = take[take.length - 1];
        offset = 0;
      }
      const last = rows[rows.length - 1];
      return ok({
        list: await personalise(db, user, await viewsFrom(rows, loaded)),
        total: count.total,
        totalExact: count.exact,
        pageNo,
        pageSize,
        nextCursor: more && last ? encodeCursor({ nameKey: last.nameKey, id: last.id }) : null,
      });
    },

    async searchUserPage(req) {
      callerOf(req.user);
      const q = req.query;
      const pageNo = q.pageNo ?? 1;
      const pageSize = q.pageSize ?? 20;
      const { list, total } = await searchUsers(db, q.keyword.trim(), (pageNo - 1) * pageSize, pageSize);
      return ok({ list, total, pageNo, pageSize, nextCursor: null });
    },

    async searchGroupPage(req) {
      const user = callerOf(req.user);
      const q = req.query;
      const pageNo = q.pageNo ?? 1;
      const pageSize = q.pageSize ?? 20;
      const { list, total } = await searchGroups(db, user.userId, q.keyword.trim(), q.mine ?? false, (pageNo - 1) * pageSize, pageSize);
      return ok({ list, total, pageNo, pageSize, nextCursor: null });
    },
  };
}
