// Business library administration and the attribute values of library files (contract tag "business-libs",
// issue #18 part 2). Library, classifier and attribute changes are the administrators' (marked admin); reading
// classifiers and files is for whoever may use the library (usableLib) and the files themselves (the access gate).
import type { AppContext, Handlers } from '../context.ts';
import { done, ok } from '../http/envelope.ts';
import { AppError } from '../http/errors.ts';
import { callerOf, listFolderFor } from '../files/access.ts';
import { currentPermissions, permissionsOfChildren, type Actor } from '../files/access-gate.ts';
import { instanceView, viewsOf } from '../files/wire.ts';
import { getInstanceRow, getInstanceRows, type InstanceRow } from '../db/instances-repo.ts';
import { getBusinessLib, listBusinessLibs, usableLib, type BusinessLib } from '../db/libraries-repo.ts';
import {
  addClassifier, attrCodeTaken, createLib, customLib, DATA_TYPES, deleteClassifier, deleteLib, getClassifier, libById, libConfig, libRoot, libStats,
  listClassifiers, matchingChildren, matchingInLibrary, modClassifier, setLibConfig, updateLib, validateValues, valuesOf, writeValues, type AttrValue,
  type Classifier,
} from '../db/business-libs-repo.ts';
import { getUserById } from '../db/users-repo.ts';
import type { Db } from '../db/sql/tx.ts';
import type { components } from '@hcs/openapi/schema';

type Schemas = components['schemas'];

const DATA_TYPE_NAMES: Readonly<Record<(typeof DATA_TYPES)[number], { name: string; nameEn: string }>> = {
  text: { name: '文本', nameEn: 'Text' },
  number: { name: '数字', nameEn: 'Number' },
  date: { name: '日期', nameEn: 'Date' },
  enumeration: { name: '枚举', nameEn: 'Enumeration' },
  user: { name: '用户', nameEn: 'User' },
  department: { name: '部门', nameEn: 'Department' },
};

/** pageLibFiles with deep pages over at most this many matches (the contract says so). */
const DEEP_LIMIT = 1000;

const flag = (b: boolean) => (b ? (1 as const) : (0 as const));
const bool = (v: 0 | 1 | undefined) => (v === undefined ? undefined : v === 1);

async function adminView(db: Db, l: BusinessLib, by: string): Promise<Schemas['BusinessLibAdmin']> {
  return {
    libId: l.id, libCode: l.libCode, libName: l.libName, libNameEn: l.libNameEn, webIcon: l.webIcon, isShow: flag(l.isShow), isHome: flag(l.isHome),
    sort: l.sort, isEnabled: flag(l.isEnabled), custom: flag(l.custom), rootId: l.custom ? (await libRoot(db, l.libCode, by)).id : null,
  };
}

function classifierView(c: Classifier): Schemas['Classifier'] {
  return { ...c, attributes: c.attributes.map((a) => ({ ...a })) };
}

/** attrFilter's JSON object, or VALIDATION_FAILED. */
function parseFilter(raw: string | undefined): Record<string, AttrValue> {
  if (raw === undefined || raw.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    parsed = undefined;
  }
  const ok = parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) &&
    Object.values(parsed).every((v) => v === null || typeof v === 'string' || typeof v === 'number');
  if (!ok) throw new AppError('VALIDATION_FAILED', 'attrFilter: a JSON object of attribute code to value', { fields: [{ field: 'attrFilter', message: 'a JSON object of attribute code to value' }] });
  return parsed as Record<string, AttrValue>;
}

export function businessLibsHandlers(ctx: AppContext): Handlers {
  const { db } = ctx;

  const configView = async (libCode: string): Promise<Schemas['LibConfig']> => {
    const [lib, c] = [await getBusinessLib(db, libCode), await libConfig(db, libCode)];
    if (!lib || !c) throw new AppError('NOT_FOUND', `no business library ${libCode}`);
    const { maxCount, maxDays } = ctx.config.versions;
    return {
      libCode: lib.libCode, custom: flag(lib.custom), versionMaxCount: c.versionMaxCount, versionMaxDays: c.versionMaxDays, adminOnly: flag(c.adminOnly),
      defaults: { versionMaxCount: maxCount, versionMaxDays: maxDays },
    };
  };

  /** The classifier, which must belong to `libCode` (another library's id answers NOT_FOUND). */
  const classifierIn = async (libCode: string, id: string): Promise<Classifier> => {
    const c = await getClassifier(db, id).catch(() => null);
    if (!c || c.libCode !== libCode) throw new AppError('NOT_FOUND', 'no such classifier in this library');
    return c;
  };

  /**
   * pageLibFiles with deep: matching files anywhere in the library, of those the caller may view (decided by the
   * gate for all of them at once), paged by name over the first DEEP_LIMIT matches.
   */
  const searchLibrary = async (user: Actor, lib: BusinessLib, filter: Record<string, AttrValue>, classifierId: string | undefined, keyword: string | undefined, pageNo: number, pageSize: number) => {
    const root = await libRoot(db, lib.libCode, user.userId);
    const ids = await matchingInLibrary(db, lib.libCode, filter, classifierId, keyword, DEEP_LIMIT);
    const byId = new Map((await getInstanceRows(db, ids)).map((r) => [r.id, r]));
    const rows = ids.map((id) => byId.get(id)).filter((r): r is InstanceRow => r !== undefined);
    const allowed = await currentPermissions(db, user, rows);
    const visible = rows.map((r, i) => ({ r, a: allowed[i]! })).filter((x) => x.a.has('view'));
    const page = visible.slice((pageNo - 1) * pageSize, pageNo * pageSize);
    const views = await viewsOf(db, page.map((x) => x.r), page.map((x) => x.a));
    const values = await valuesOf(db, page.map((x) => x.r.id));
    return {
      list: views.map((v) => ({ ...v, attrClassifierId: values.get(v.instanceId)!.classifierId, attrs: values.get(v.instanceId)!.values })),
      total: visible.length,
      pageNo,
      pageSize,
      nextCursor: null,
      parentId: root.id,
      breadcrumbs: [{ instanceId: root.id, instanceName: lib.libName }],
    };
  };

  return {
    async getAllBusinessLibs(req) {
      const user = callerOf(req.user);
      const libs = await listBusinessLibs(db, { includeAdminOnly: true, includeDisabled: true });
      return ok(await Promise.all(libs.map((l) => adminView(db, l, user.userId))));
    },

    async getLibByUserId(req) {
      const user = callerOf(req.user);
      const { userId } = req.query;
      if (userId !== user.userId && !user.isAdmin) throw new AppError('FORBIDDEN', "only administrators can read another user's libraries");
      const target = userId === user.userId ? { isAdmin: user.isAdmin } : await getUserById(db, userId);
      if (!target) throw new AppError('NOT_FOUND', 'no such user');
      const libs = await listBusinessLibs(db, { includeAdminOnly: target.isAdmin });
      return ok(libs.map((l) => ({ libId: l.id, libCode: l.libCode, libName: l.libName, libNameEn: l.libNameEn, webIcon: l.webIcon, isShow: flag(l.isShow), isHome: flag(l.isHome), sort: l.sort })));
    },

    async addBusinessLib(req) {
      const user = callerOf(req.user);
      const b = req.body;
      await createLib(db, {
        libCode: b.libCode, libName: b.libName.trim(), libNameEn: b.libNameEn.trim(), webIcon: b.webIcon ?? 'appstore',
        isShow: b.isShow !== 0, isHome: b.isHome !== 0, sort: b.sort ?? 100,
      }, user.userId);
      return ok(await adminView(db, (await getBusinessLib(db, b.libCode))!, user.userId));
    },

    async updateBusinessLib(req) {
      const user = callerOf(req.user);
      const lib = await libById(db, req.params.libId);
      const b = req.body;
      await updateLib(db, lib.libCode, {
        libName: b.libName?.trim(), libNameEn: b.libNameEn?.trim(), webIcon: b.webIcon, isShow: bool(b.isShow), isHome: bool(b.isHome), sort: b.sort, isEnabled: bool(b.isEnabled),
      });
      return ok(await adminView(db, (await getBusinessLib(db, lib.libCode))!, user.userId));
    },

    async deleteBusinessLib(req) {
      callerOf(req.user);
      const lib = await libById(db, req.params.libId);
      await deleteLib(db, lib.libCode);
      return done();
    },

    async getDataTypes(req) {
      callerOf(req.user);
      return ok(DATA_TYPES.map((code) => ({ code, ...DATA_TYPE_NAMES[code] })));
    },

    async listClassifiers(req) {
      const user = callerOf(req.user);
      const lib = await usableLib(db, req.query.libCode, user.isAdmin);
      return ok((lib.custom ? await listClassifiers(db, lib.libCode) : []).map(classifierView));
    },

    async addClassifier(req) {
      callerOf(req.user);
      const b = req.body;
      const lib = await customLib(db, b.libCode);
      const id = await addClassifier(db, {
        libCode: lib.libCode, classifierCode: b.classifierCode, classifierName: b.classifierName.trim(), classifierNameEn: b.classifierNameEn.trim(),
        features: b.features ?? ['upload', 'download', 'preview'], attributes: b.attributes ?? [],
      });
      return ok(classifierView(await getClassifier(db, id)));
    },

    async modClassifier(req) {
      callerOf(req.user);
      const b = req.body;
      await modClassifier(db, b.classifierId, { classifierName: b.classifierName?.trim(), classifierNameEn: b.classifierNameEn?.trim(), attributes: b.attributes, sort: b.sort });
      return ok(classifierView(await getClassifier(db, b.classifierId)));
    },

    async setClassifierFeatures(req) {
      callerOf(req.user);
      const b = req.body;
      await modClassifier(db, b.classifierId, { features: b.features });
      return ok(classifierView(await getClassifier(db, b.classifierId)));
    },

    async deleteClassifier(req) {
      callerOf(req.user);
      await deleteClassifier(db, req.body.classifierId);
      return done();
    },

    async getBusinessLibStats(req) {
      callerOf(req.user);
      const code = req.query.libCode;
      const codes = code !== undefined
        ? [(await customLib(db, code)).libCode]
        : (await listBusinessLibs(db, { includeAdminOnly: true, includeDisabled: true })).filter((l) => l.custom).map((l) => l.libCode);
      return ok(await libStats(db, codes));
    },

    async getBusinessLibConfig(req) {
      callerOf(req.user);
      return ok(await configView(req.query.libCode));
    },

    async setBusinessLibConfig(req) {
      callerOf(req.user);
      const b = req.body;
      const lib = await getBusinessLib(db, b.libCode);
      if (!lib) throw new AppError('NOT_FOUND', `no business library ${b.libCode}`);
      if (b.adminOnly !== undefined && !lib.custom) throw new AppError('FORBIDDEN', `who may use the built-in ${lib.libCode} library is fixed`);
      await setLibConfig(db, lib.libCode, { versionMaxCount: b.versionMaxCount, versionMaxDays: b.versionMaxDays, adminOnly: bool(b.adminOnly) });
      return ok(await configView(lib.libCode));
    },

    async exisAttrCode(req) {
      callerOf(req.user);
      const lib = await customLib(db, req.query.libCode);
      return ok({ exists: await attrCodeTaken(db, lib.libCode, req.query.attrCode) });
    },

    async getInstanceAttrs(req) {
      callerOf(req.user);
      const id = req.query.instanceId;
      const found = (await valuesOf(db, [id])).get(id)!;
      return ok({ instanceId: id, ...found });
    },

    async setInstanceAttrs(req) {
      const user = callerOf(req.user);
      const b = req.body;
      // The gate has checked `edit` on the row: it exists and the caller may change it.
      const row = req.gateRows?.get(b.instanceId) ?? (await getInstanceRow(db, b.instanceId));
      if (!row || row.deletedAt !== null) throw new AppError('NOT_FOUND', 'no such file or folder');
      const lib = await usableLib(db, row.libCode, user.isAdmin);
      if (!lib.custom || row.isFolder) throw new AppError('BAD_REQUEST', 'only files of a custom business library carry attributes');
      const classifier = await classifierIn(lib.libCode, b.classifierId);
      const values = await validateValues(db, classifier, b.values);
      await writeValues(db, row.id, classifier, values);
      return ok({ instanceId: row.id, ...(await valuesOf(db, [row.id])).get(row.id)! });
    },

    async pageLibFiles(req) {
      const user = callerOf(req.user);
      const q = req.query;
      const lib = await usableLib(db, q.libCode, user.isAdmin);
      if (!lib.custom) throw new AppError('BAD_REQUEST', 'only custom business libraries list attributes');
      const filter = parseFilter(q.attrFilter);
      const filtered = Object.keys(filter).length > 0 || q.classifierId !== undefined;
      if (q.classifierId) await classifierIn(lib.libCode, q.classifierId);
      const pageNo = q.pageNo ?? 1;
      const pageSize = q.pageSize ?? 20;
      if (q.deep) return ok(await searchLibrary(user, lib, filter, q.classifierId, q.keyword?.trim() || undefined, pageNo, pageSize));
      const base = { sortField: 'instanceName' as const, sortOrder: 'asc' as const, keyword: q.keyword?.trim() || undefined, pageNo, pageSize };
      // A filter narrows the listing to the matching children (one indexed query), then the ordinary listing pages
      // them with the access gate's scope, so a filter can never show what the caller may not see.
      let only: string[] | undefined;
      if (filtered) {
        const folderId = q.parentId && q.parentId !== '0' ? q.parentId : (await libRoot(db, lib.libCode, user.userId)).id;
        only = await matchingChildren(db, lib.libCode, folderId, filter, q.classifierId);
      }
      const { folder, ancestors, page } = await listFolderFor(db, user, q.parentId, lib.libCode, '3', { ...base, ...(only ? { only } : {}) }, req.gateRows);
      if (folder.libCode !== lib.libCode) throw new AppError('NOT_FOUND', 'the folder is not in this library');
      const chain = [...ancestors, folder];
      const names = chain.filter((a) => a.parentId !== null).map((a) => a.name);
      const allowed = await permissionsOfChildren(db, user, folder, ancestors, page.rows);
      const values = await valuesOf(db, page.rows.map((r) => r.id));
      return ok({
        list: page.rows.map((r, i) => {
          const v = values.get(r.id)!;
          return { ...instanceView(r, names, allowed[i]), attrClassifierId: v.classifierId, attrs: v.values };
        }),
        total: page.total,
        pageNo,
        pageSize,
        nextCursor: page.nextCursor,
        parentId: folder.id,
        breadcrumbs: chain.map((a) => ({ instanceId: a.id, instanceName: a.parentId === null ? lib.libName : a.name })),
      });
    },
  };
}

/**
 * The values a saveInstance request carries for a file of a custom library, checked before anything is stored
 * (VALIDATION_FAILED names each field under attrs.values). null for files without attrs.
 */
export async function checkUploadAttrs(db: Db, libCode: string, attrs: { classifierId: string; values: Record<string, AttrValue> } | undefined) {
  if (!attrs) return null;
  const lib = await getBusinessLib(db, libCode);
  if (!lib?.custom) throw new AppError('BAD_REQUEST', 'attrs: only files of a custom business library carry attributes', { fields: [{ field: 'attrs', message: 'not a business library' }] });
  const classifier = await getClassifier(db, attrs.classifierId).catch(() => null);
  if (!classifier || classifier.libCode !== libCode) throw new AppError('NOT_FOUND', 'no such classifier in this library');
  return { classifier, values: await validateValues(db, classifier, attrs.values, 'attrs.values') };
}

export { writeValues as writeUploadAttrs };
