// Business libraries made by administrators (issue #18 part 2): the libraries themselves (rows of business_libs
// with custom = 1), their classifiers and typed attributes, and the attribute values files carry.
//
// A custom library keeps its files under one root, a department-like space of the organisation's root department
// with the library's code (getOrCreateRoot keys roots by space and library): the access gate then decides in it as
// in any department space (role grants on the root or below; defaultrole for members of the organisation).
import { sql, type Selectable, type SelectQueryBuilder } from 'kysely';
import type { Db } from './sql/tx.ts';
import { transaction } from './sql/tx.ts';
import type { ClassifiersTable, LibAttributesTable } from './sql/schema-bizlibs.ts';
import type { InstancesTable, Schema } from './sql/schema.ts';
import { AppError } from '../http/errors.ts';
import { uniqueViolation } from './sql/errors.ts';
import { newId } from '../ids.ts';
import { getBusinessLib, type BusinessLib } from './libraries-repo.ts';
import { getOrCreateRoot } from './instances-repo.ts';
import { ROOT_DEPT_ID } from './departments-repo.ts';
import type { Space } from './quota.ts';

export const DATA_TYPES = ['text', 'number', 'date', 'enumeration', 'user', 'department'] as const;
export type DataType = (typeof DATA_TYPES)[number];
export const FEATURES = ['upload', 'download', 'share', 'preview', 'versions'] as const;
export type Feature = (typeof FEATURES)[number];

/** The one space every custom library's files live in (see the file comment). */
export const LIB_SPACE: Space = { kind: 'dept', id: ROOT_DEPT_ID };

/** The menu entry every custom library gets; its children are the classifiers. */
const FILES_MENU = 'files';

type Fields = { field: string; message: string }[];
const invalid = (fields: Fields): AppError => new AppError('VALIDATION_FAILED', fields.map((f) => `${f.field}: ${f.message}`).join('; '), { fields });

export interface Attribute {
  attrId: string;
  attrCode: string;
  attrName: string;
  attrNameEn: string;
  dataType: DataType;
  required: boolean;
  unique: boolean;
  options: string[];
  sort: number;
}

export interface Classifier {
  classifierId: string;
  libCode: string;
  classifierCode: string;
  classifierName: string;
  classifierNameEn: string;
  features: Feature[];
  attributes: Attribute[];
  sort: number;
}

export type AttributeInput = Omit<Attribute, 'attrId' | 'options' | 'sort'> & { attrId?: string | undefined; options?: string[] | undefined; sort?: number | undefined };

function toAttr(r: Selectable<LibAttributesTable>): Attribute {
  return {
    attrId: r.id,
    attrCode: r.code,
    attrName: r.name,
    attrNameEn: r.name_en,
    dataType: r.data_type as DataType,
    required: r.required === 1,
    unique: r.is_unique === 1,
    options: JSON.parse(r.options) as string[],
    sort: r.sort,
  };
}

function toClassifier(r: Selectable<ClassifiersTable>, attrs: Attribute[]): Classifier {
  return {
    classifierId: r.id,
    libCode: r.lib_code,
    classifierCode: r.code,
    classifierName: r.name,
    classifierNameEn: r.name_en,
    features: JSON.parse(r.features) as Feature[],
    attributes: attrs,
    sort: r.sort,
  };
}

/** A custom library by code, or NOT_FOUND (built-in libraries hold no classifiers). */
export async function customLib(db: Db, libCode: string): Promise<BusinessLib> {
  const lib = await getBusinessLib(db, libCode);
  if (!lib || !lib.custom) throw new AppError('NOT_FOUND', `no custom business library ${libCode}`);
  return lib;
}

export async function libById(db: Db, libId: string): Promise<BusinessLib> {
  const r = await db.selectFrom('business_libs').select('lib_code').where('id', '=', libId).executeTakeFirst();
  const lib = r && (await getBusinessLib(db, r.lib_code));
  if (!lib) throw new AppError('NOT_FOUND', 'no such business library');
  if (!lib.custom) throw new AppError('FORBIDDEN', `the built-in ${lib.libCode} library is not changed here`);
  return lib;
}

/** The library's root folder (created with the library; recreated if it was somehow lost). */
export function libRoot(db: Db, libCode: string, by: string) {
  return getOrCreateRoot(db, LIB_SPACE, libCode, by);
}

export interface NewLib {
  libCode: string;
  libName: string;
  libNameEn: string;
  webIcon: string;
  isShow: boolean;
  isHome: boolean;
  sort: number;
}

/** Creates the library, its root and its Files menu in one transaction; a taken code (any case) is CONFLICT. */
export async function createLib(db: Db, lib: NewLib, by: string): Promise<string> {
  return transaction(db, async (trx) => {
    const id = `lib_${newId()}`;
    try {
      await trx
        .insertInto('business_libs')
        .values({
          id, lib_code: lib.libCode, lib_name: lib.libName, lib_name_en: lib.libNameEn, web_icon: lib.webIcon,
          is_show: lib.isShow ? 1 : 0, is_home: lib.isHome ? 1 : 0, admin_only: 0, sort: lib.sort, version_max_count: null, version_max_days: null,
          is_enabled: 1, custom: 1,
        })
        .execute();
    } catch (err) {
      throw uniqueViolation(err) ? new AppError('CONFLICT', `the library code ${lib.libCode} is taken`, { fields: [{ field: 'libCode', message: 'taken' }] }) : err;
    }
    await trx
      .insertInto('menus')
      .values({
        id: `${lib.libCode}.${FILES_MENU}`, lib_code: lib.libCode, menu_code: FILES_MENU, menu_name: 'Files', menu_str: '文件',
        menu_url: '/businessLibrary', parent_id: '0', menu_index: 10, menu_show: 1, menu_icon: 'folder',
      })
      .execute();
    await libRoot(trx, lib.libCode, by);
    return id;
  });
}

export type LibChanges = Partial<Omit<NewLib, 'libCode'> & { isEnabled: boolean }>;

export async function updateLib(db: Db, libCode: string, c: LibChanges): Promise<void> {
  const flag = (v: boolean | undefined) => (v === undefined ? undefined : v ? (1 as const) : (0 as const));
  const values = Object.fromEntries(
    Object.entries({
      lib_name: c.libName, lib_name_en: c.libNameEn, web_icon: c.webIcon, is_show: flag(c.isShow), is_home: flag(c.isHome), sort: c.sort, is_enabled: flag(c.isEnabled),
    }).filter(([, v]) => v !== undefined),
  );
  if (Object.keys(values).length === 0) return;
  await db.updateTable('business_libs').set(values).where('lib_code', '=', libCode).execute();
}

/**
 * Deletes an empty library with what hangs on it. Anything below its roots, live or in a bin, keeps it (CONFLICT):
 * files are never dropped by a library delete. The check and the delete share one transaction.
 */
export async function deleteLib(db: Db, libCode: string): Promise<void> {
  await transaction(db, async (trx) => {
    const held = await trx.selectFrom('instances').select('id').where('lib_code', '=', libCode).where('parent_id', 'is not', null).limit(1).executeTakeFirst();
    if (held) throw new AppError('CONFLICT', `the ${libCode} library still holds files or folders; empty it or disable it instead`);
    await trx.deleteFrom('recycle_entries').where('instance_id', 'in', trx.selectFrom('instances').select('id').where('lib_code', '=', libCode)).execute();
    await trx.deleteFrom('grants').where('instance_id', 'in', trx.selectFrom('instances').select('id').where('lib_code', '=', libCode)).execute();
    await trx.deleteFrom('instances').where('lib_code', '=', libCode).execute();
    await trx.deleteFrom('menus').where('lib_code', '=', libCode).execute();
    await trx.deleteFrom('classifiers').where('lib_code', '=', libCode).execute();
    await trx.deleteFrom('business_libs').where('lib_code', '=', libCode).execute();
  });
}

export async function listClassifiers(db: Db, libCode: string): Promise<Classifier[]> {
  const rows = await db.selectFrom('classifiers').selectAll().where('lib_code', '=', libCode).orderBy('sort').orderBy('code_key').execute();
  if (rows.length === 0) return [];
  const attrs = await db.selectFrom('lib_attributes').selectAll().where('lib_code', '=', libCode).orderBy('sort').orderBy('code_key').execute();
  return rows.map((r) => toClassifier(r, attrs.filter((a) => a.classifier_id === r.id).map(toAttr)));
}

export async function getClassifier(db: Db, id: string): Promise<Classifier> {
  const r = await db.selectFrom('classifiers').selectAll().where('id', '=', id).executeTakeFirst();
  if (!r) throw new AppError('NOT_FOUND', 'no such classifier');
  const attrs = await db.selectFrom('lib_attributes').selectAll().where('classifier_id', '=', id).orderBy('sort').orderBy('code_key').execute();
  return toClassifier(r, attrs.map(toAttr));
}

export async function attrCodeTaken(db: Db, libCode: string, code: string): Promise<boolean> {
  const r = await db.selectFrom('lib_attributes').select('id').where('lib_code', '=', libCode).where('code_key', '=', code.toLowerCase()).executeTakeFirst();
  return r !== undefined;
}

/** Field errors of an attribute list on its own: codes repeated in the list, options only (and always) for enumerations. */
function checkAttributes(attrs: readonly AttributeInput[]): void {
  const fields: Fields = [];
  const seen = new Set<string>();
  attrs.forEach((a, i) => {
    const key = a.attrCode.toLowerCase();
    if (seen.has(key)) fields.push({ field: `attributes[${i}].attrCode`, message: 'repeated' });
    seen.add(key);
    const options = a.options ?? [];
    if (a.dataType === 'enumeration' && options.length === 0) fields.push({ field: `attributes[${i}].options`, message: 'an enumeration needs options' });
    if (a.dataType !== 'enumeration' && options.length > 0) fields.push({ field: `attributes[${i}].options`, message: 'only enumerations have options' });
    if (new Set(options).size !== options.length) fields.push({ field: `attributes[${i}].options`, message: 'repeated' });
  });
  if (fields.length > 0) throw invalid(fields);
}

const attrTaken = (code: string) => new AppError('CONFLICT', `the attribute code ${code} is taken in this library`, { fields: [{ field: 'attrCode', message: 'taken' }] });

async function insertAttributes(db: Db, classifierId: string, libCode: string, attrs: readonly AttributeInput[]): Promise<void> {
  for (const [i, a] of attrs.entries()) {
    try {
      await db
        .insertInto('lib_attributes')
        .values({
          id: `attr_${newId()}`, classifier_id: classifierId, lib_code: libCode, code: a.attrCode, code_key: a.attrCode.toLowerCase(), name: a.attrName,
          name_en: a.attrNameEn, data_type: a.dataType, required: a.required ? 1 : 0, is_unique: a.unique ? 1 : 0,
          options: JSON.stringify(a.options ?? []), sort: a.sort ?? (i + 1) * 10,
        })
        .execute();
    } catch (err) {
      throw uniqueViolation(err) ? attrTaken(a.attrCode) : err;
    }
  }
}

/** The menu child of a classifier under the library's Files entry: the library screen filtered to it. */
async function classifierMenu(db: Db, c: { id: string; libCode: string; code: string; name: string; nameEn: string; sort: number }): Promise<void> {
  const id = `${c.libCode}.${FILES_MENU}.${c.code}`;
  await db.deleteFrom('menus').where('id', '=', id).execute();
  await db
    .insertInto('menus')
    .values({
      id, lib_code: c.libCode, menu_code: `${FILES_MENU}.${c.code}`, menu_name: c.nameEn, menu_str: c.name,
      menu_url: `/businessLibrary?classifierId=${encodeURIComponent(c.id)}`, parent_id: `${c.libCode}.${FILES_MENU}`, menu_index: c.sort, menu_show: 1, menu_icon: 'file',
    })
    .execute();
}

export interface NewClassifier {
  libCode: string;
  classifierCode: string;
  classifierName: string;
  classifierNameEn: string;
  features: Feature[];
  attributes: AttributeInput[];
}

export async function addClassifier(db: Db, c: NewClassifier): Promise<string> {
  checkAttributes(c.attributes);
  return transaction(db, async (trx) => {
    const id = `cls_${newId()}`;
    // After the last one, not after the count: once one is removed, a count would put two on the same place.
    const last = (await trx.selectFrom('classifiers').select((eb) => eb.fn.max<number | null>('sort').as('m')).where('lib_code', '=', c.libCode).executeTakeFirstOrThrow()).m;
    const sort = Number(last ?? 0) + 10;
    try {
      await trx
        .insertInto('classifiers')
        .values({ id, lib_code: c.libCode, code: c.classifierCode, code_key: c.classifierCode.toLowerCase(), name: c.classifierName, name_en: c.classifierNameEn, features: JSON.stringify(c.features), sort, created_at: Date.now() })
        .execute();
    } catch (err) {
      throw uniqueViolation(err) ? new AppError('CONFLICT', `the classifier code ${c.classifierCode} is taken in this library`, { fields: [{ field: 'classifierCode', message: 'taken' }] }) : err;
    }
    await insertAttributes(trx, id, c.libCode, c.attributes);
    await classifierMenu(trx, { id, libCode: c.libCode, code: c.classifierCode, name: c.classifierName, nameEn: c.classifierNameEn, sort });
    return id;
  });
}

export interface ClassifierChanges {
  classifierName?: string | undefined;
  classifierNameEn?: string | undefined;
  features?: Feature[] | undefined;
  attributes?: AttributeInput[] | undefined;
  sort?: number | undefined;
}

/** Renames, sets features, or replaces the attribute list (see ModClassifierRequest) in one transaction. */
export async function modClassifier(db: Db, id: string, c: ClassifierChanges): Promise<void> {
  if (c.attributes) checkAttributes(c.attributes);
  await transaction(db, async (trx) => {
    const cur = await getClassifier(trx, id);
    const set = Object.fromEntries(
      Object.entries({ name: c.classifierName, name_en: c.classifierNameEn, features: c.features && JSON.stringify(c.features), sort: c.sort }).filter(([, v]) => v !== undefined),
    );
    if (Object.keys(set).length > 0) await trx.updateTable('classifiers').set(set).where('id', '=', id).execute();
    if (c.classifierName !== undefined || c.classifierNameEn !== undefined || c.sort !== undefined) {
      const row = await trx.selectFrom('classifiers').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
      await classifierMenu(trx, { id, libCode: row.lib_code, code: row.code, name: row.name, nameEn: row.name_en, sort: row.sort });
    }
    if (!c.attributes) return;
    const byId = new Map(cur.attributes.map((a) => [a.attrId, a]));
    const kept = new Set<string>();
    const added: AttributeInput[] = [];
    for (const [i, a] of c.attributes.entries()) {
      if (a.attrId === undefined) {
        added.push(a);
        continue;
      }
      const old = byId.get(a.attrId);
      if (!old) throw invalid([{ field: `attributes[${i}].attrId`, message: 'not an attribute of this classifier' }]);
      kept.add(a.attrId);
      if (old.dataType !== a.dataType && (await hasValues(trx, a.attrId))) {
        throw new AppError('CONFLICT', `files hold values of ${old.attrCode}: its data type cannot change`, { fields: [{ field: `attributes[${i}].dataType`, message: 'files hold values' }] });
      }
      if (a.unique && !old.unique) await assertNoDuplicates(trx, a.attrId, old.attrCode);
      try {
        await trx
          .updateTable('lib_attributes')
          .set({
            code: a.attrCode, code_key: a.attrCode.toLowerCase(), name: a.attrName, name_en: a.attrNameEn, data_type: a.dataType, required: a.required ? 1 : 0,
            is_unique: a.unique ? 1 : 0, options: JSON.stringify(a.options ?? []), sort: a.sort ?? (i + 1) * 10,
          })
          .where('id', '=', a.attrId)
          .execute();
      } catch (err) {
        throw uniqueViolation(err) ? attrTaken(a.attrCode) : err;
      }
      await trx.updateTable('instance_attrs').set({ unique_key: a.unique ? sql<string>`value_key` : null }).where('attr_id', '=', a.attrId).execute();
    }
    const removed = cur.attributes.filter((a) => !kept.has(a.attrId)).map((a) => a.attrId);
    if (removed.length > 0) {
      await trx.deleteFrom('instance_attrs').where('attr_id', 'in', removed).execute();
      await trx.deleteFrom('lib_attributes').where('id', 'in', removed).execute();
    }
    await insertAttributes(trx, id, cur.libCode, added);
  });
}

async function hasValues(db: Db, attrId: string): Promise<boolean> {
  return (await db.selectFrom('instance_attrs').select('instance_id').where('attr_id', '=', attrId).limit(1).executeTakeFirst()) !== undefined;
}

async function assertNoDuplicates(db: Db, attrId: string, code: string): Promise<void> {
  const dup = await db.selectFrom('instance_attrs').select('value_key').where('attr_id', '=', attrId).groupBy('value_key').having((eb) => eb.fn.countAll(), '>', 1).limit(1).executeTakeFirst();
  if (dup) throw new AppError('CONFLICT', `files hold the same value of ${code}: it cannot become unique`, { fields: [{ field: 'unique', message: 'duplicate values' }] });
}

export type AttrValue = string | number | null;

/** A value ready to store: its wire form, its comparison key, and its number (numbers; dates as epoch days). */
export interface StoredValue {
  attr: Attribute;
  text: string;
  key: string;
  num: number | null;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

function epochDay(s: string): number | null {
  const m = DATE.exec(s);
  if (!m) return null;
  const t = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  // Date.UTC rolls 2025-02-30 over to March: a real day reads back the same.
  return new Date(t).toISOString().slice(0, 10) === s ? t / 86_400_000 : null;
}

/**
 * Checks `values` against the classifier's attributes and returns what to store: every key names an attribute,
 * every required attribute has a value, each value fits its data type (users and departments must exist). All
 * problems are reported at once (VALIDATION_FAILED with one field each); uniqueness is the database's (writeValues).
 */
export async function validateValues(db: Db, classifier: Classifier, values: Readonly<Record<string, AttrValue>>, prefix = 'values'): Promise<StoredValue[]> {
  const fields: Fields = [];
  const byKey = new Map(classifier.attributes.map((a) => [a.attrCode.toLowerCase(), a]));
  for (const code of Object.keys(values)) if (!byKey.has(code.toLowerCase())) fields.push({ field: `${prefix}.${code}`, message: 'not an attribute of the classifier' });
  const given = new Map(Object.entries(values).map(([k, v]) => [k.toLowerCase(), v]));
  const out: StoredValue[] = [];
  const refs: { attr: Attribute; id: string }[] = [];
  for (const attr of classifier.attributes) {
    const raw = given.get(attr.attrCode.toLowerCase());
    const field = `${prefix}.${attr.attrCode}`;
    const text = raw === null || raw === undefined ? '' : String(raw).trim();
    if (text === '') {
      if (attr.required) fields.push({ field, message: 'required' });
      continue;
    }
    const bad = (message: string) => fields.push({ field, message });
    switch (attr.dataType) {
      case 'text':
        if (typeof raw !== 'string') bad('must be text');
        else out.push({ attr, text, key: text.toLowerCase(), num: null });
        break;
      case 'number': {
        const n = typeof raw === 'number' ? raw : /^-?\d+(\.\d+)?$/.test(text) ? Number(text) : NaN;
        if (!Number.isFinite(n)) bad('must be a number');
        else out.push({ attr, text: String(n), key: String(n), num: n });
        break;
      }
      case 'date': {
        const day = typeof raw === 'string' ? epochDay(text) : null;
        if (day === null) bad('must be a date (YYYY-MM-DD)');
        else out.push({ attr, text, key: text, num: day });
        break;
      }
      case 'enumeration':
        if (!attr.options.includes(text)) bad(`must be one of ${attr.options.join(', ')}`);
        else out.push({ attr, text, key: text.toLowerCase(), num: null });
        break;
      case 'user':
      case 'department':
        if (typeof raw !== 'string') bad(`must be a ${attr.dataType} id`);
        else refs.push({ attr, id: text });
        break;
    }
  }
  const userIds = refs.filter((r) => r.attr.dataType === 'user').map((r) => r.id);
  const deptIds = refs.filter((r) => r.attr.dataType === 'department').map((r) => r.id);
  const users = new Set(userIds.length ? (await db.selectFrom('users').select('id').where('id', 'in', userIds).where('deleted_at', 'is', null).execute()).map((r) => r.id) : []);
  const depts = new Set(deptIds.length ? (await db.selectFrom('departments').select('id').where('id', 'in', deptIds).execute()).map((r) => r.id) : []);
  for (const r of refs) {
    const known = r.attr.dataType === 'user' ? users.has(r.id) : depts.has(r.id);
    if (!known) fields.push({ field: `${prefix}.${r.attr.attrCode}`, message: `no such ${r.attr.dataType}` });
    else out.push({ attr: r.attr, text: r.id, key: r.id, num: null });
  }
  if (fields.length > 0) throw invalid(fields);
  return out;
}

/**
 * Replaces a file's classifier and values (inside the caller's transaction, or its own). A unique attribute's value
 * held by another file is refused by the database's unique index (any node), reported as VALIDATION_FAILED.
 */
export async function writeValues(db: Db, instanceId: string, classifier: Classifier, values: readonly StoredValue[], prefix = 'values'): Promise<void> {
  await transaction(db, async (trx) => {
    await trx.deleteFrom('instance_attrs').where('instance_id', '=', instanceId).execute();
    await trx.deleteFrom('instance_classifiers').where('instance_id', '=', instanceId).execute();
    await trx.insertInto('instance_classifiers').values({ instance_id: instanceId, classifier_id: classifier.classifierId, lib_code: classifier.libCode }).execute();
    for (const v of values) {
      try {
        await trx
          .insertInto('instance_attrs')
          .values({ instance_id: instanceId, attr_id: v.attr.attrId, value_text: v.text, value_key: v.key, value_num: v.num, unique_key: v.attr.unique ? v.key : null })
          .execute();
      } catch (err) {
        if (!uniqueViolation(err)) throw err;
        throw invalid([{ field: `${prefix}.${v.attr.attrCode}`, message: 'another file holds this value' }]);
      }
    }
  });
}

export interface FileValues {
  classifierId: string | null;
  values: Record<string, AttrValue>;
}

/** The classifier and values of each of `ids` (files without any get classifierId null and no values). */
export async function valuesOf(db: Db, ids: readonly string[]): Promise<Map<string, FileValues>> {
  const out = new Map<string, FileValues>(ids.map((id) => [id, { classifierId: null, values: {} }]));
  if (ids.length === 0) return out;
  const classes = await db.selectFrom('instance_classifiers').select(['instance_id', 'classifier_id']).where('instance_id', 'in', [...ids]).execute();
  for (const c of classes) out.get(c.instance_id)!.classifierId = c.classifier_id;
  const rows = await db
    .selectFrom('instance_attrs as v')
    .innerJoin('lib_attributes as a', 'a.id', 'v.attr_id')
    .select(['v.instance_id', 'v.value_text', 'v.value_num', 'a.code', 'a.data_type'])
    .where('v.instance_id', 'in', [...ids])
    .execute();
  for (const r of rows) out.get(r.instance_id)!.values[r.code] = r.data_type === 'number' ? Number(r.value_num) : r.value_text;
  return out;
}

/**
 * The children of `folderId` matching every filter (attribute code -> value: text by case-insensitive substring,
 * other types exactly) and the classifier, if named: one query, each filter an indexed lookup on (attr_id, value).
 * Unknown codes are VALIDATION_FAILED.
 */
export async function matchingChildren(db: Db, libCode: string, folderId: string, filter: Readonly<Record<string, AttrValue>>, classifierId: string | undefined): Promise<string[]> {
  const q = db.selectFrom('instances as i').select('i.id').where('i.parent_id', '=', folderId).where('i.deleted_at', 'is', null).where('i.is_folder', '=', 0);
  return (await (await withFilters(db, libCode, q, filter, classifierId)).execute()).map((r) => r.id);
}

/**
 * Files anywhere in a custom library matching the filters (as matchingChildren), the classifier and a name keyword,
 * by name: the first `limit` ids. Who may view them is the caller's to decide.
 */
export async function matchingInLibrary(
  db: Db, libCode: string, filter: Readonly<Record<string, AttrValue>>, classifierId: string | undefined, keyword: string | undefined, limit: number,
): Promise<string[]> {
  let q = db
    .selectFrom('instances as i')
    .select('i.id')
    .where('i.space_kind', '=', LIB_SPACE.kind)
    .where('i.space_id', '=', LIB_SPACE.id)
    .where('i.lib_code', '=', libCode)
    .where('i.deleted_at', 'is', null)
    .where('i.is_folder', '=', 0);
  if (keyword) q = q.where(sql<boolean>`i.name_key like ${likePattern(keyword)} escape '\\'`);
  return (await (await withFilters(db, libCode, q, filter, classifierId)).orderBy('i.name_key').orderBy('i.id').limit(limit).execute()).map((r) => r.id);
}

/** The instances query the filters narrow (ids only). */
type IdQuery = SelectQueryBuilder<Schema & { i: InstancesTable }, 'i', { id: string }>;

const likePattern = (text: string) => `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** `q` narrowed to files of the classifier (if named) holding every filter's value; unknown codes are VALIDATION_FAILED. */
async function withFilters(db: Db, libCode: string, base: IdQuery, filter: Readonly<Record<string, AttrValue>>, classifierId: string | undefined): Promise<IdQuery> {
  const attrs = await db.selectFrom('lib_attributes').selectAll().where('lib_code', '=', libCode).execute();
  const byKey = new Map(attrs.map((a) => [a.code_key, toAttr(a)]));
  const fields: Fields = [];
  let q = base;
  if (classifierId) q = q.where('i.id', 'in', db.selectFrom('instance_classifiers').select('instance_id').where('classifier_id', '=', classifierId));
  for (const [code, raw] of Object.entries(filter)) {
    const attr = byKey.get(code.toLowerCase());
    const text = raw === null ? '' : String(raw).trim();
    if (!attr) {
      fields.push({ field: `attrFilter.${code}`, message: 'not an attribute of the library' });
      continue;
    }
    if (text === '') continue;
    const sub = db.selectFrom('instance_attrs').select('instance_id').where('attr_id', '=', attr.attrId);
    if (attr.dataType === 'text') {
      q = q.where('i.id', 'in', sub.where(sql<boolean>`value_key like ${likePattern(text)} escape '\\'`));
    } else if (attr.dataType === 'number') {
      const n = Number(text);
      if (!Number.isFinite(n)) fields.push({ field: `attrFilter.${code}`, message: 'must be a number' });
      else q = q.where('i.id', 'in', sub.where('value_num', '=', n));
    } else {
      q = q.where('i.id', 'in', sub.where('value_key', '=', attr.dataType === 'enumeration' ? text.toLowerCase() : text));
    }
  }
  if (fields.length > 0) throw invalid(fields);
  return q;
}

/**
 * Removes a classifier with its attributes and menu entry, in one transaction with the check that no file carries
 * it: a file in a recycle bin still has its row (and would come back with values of a classifier gone), so any
 * instance_classifiers row keeps it (CONFLICT).
 */
export async function deleteClassifier(db: Db, id: string): Promise<void> {
  await transaction(db, async (trx) => {
    const c = await getClassifier(trx, id);
    const carried = await trx.selectFrom('instance_classifiers').select('instance_id').where('classifier_id', '=', id).limit(1).executeTakeFirst();
    if (carried) throw new AppError('CONFLICT', `files carry the classifier ${c.classifierCode}: give them another classifier first`);
    await trx.deleteFrom('menus').where('id', '=', `${c.libCode}.${FILES_MENU}.${c.classifierCode}`).execute();
    await trx.deleteFrom('lib_attributes').where('classifier_id', '=', id).execute();
    await trx.deleteFrom('classifiers').where('id', '=', id).execute();
  });
}

export interface LibStats {
  libCode: string;
  files: number;
  folders: number;
  bytes: number;
  classifiers: number;
  attributes: number;
  unclassified: number;
  byClassifier: { classifierId: string; files: number }[];
  byAttribute: { attrId: string; values: number }[];
}

/**
 * What each of `libCodes` (custom libraries) holds, live entries only: four grouped queries for all of them, each
 * read through an index on the library (instances_lib_live, 019) or on the classifier and attribute.
 */
export async function libStats(db: Db, libCodes: readonly string[]): Promise<LibStats[]> {
  if (libCodes.length === 0) return [];
  const codes = [...libCodes];
  const sizes = await db
    .selectFrom('instances')
    .select(['lib_code', 'is_folder', (eb) => eb.fn.countAll<number>().as('n'), (eb) => eb.fn.sum<number | null>('size').as('bytes')])
    .where('lib_code', 'in', codes)
    .where('deleted_at', 'is', null)
    .where('parent_id', 'is not', null)
    .where('space_kind', '=', LIB_SPACE.kind)
    .where('space_id', '=', LIB_SPACE.id)
    .groupBy(['lib_code', 'is_folder'])
    .execute();
  const classifiers = await db.selectFrom('classifiers').select(['id', 'lib_code']).where('lib_code', 'in', codes).orderBy('sort').orderBy('code_key').execute();
  const attributes = await db.selectFrom('lib_attributes').select(['id', 'lib_code']).where('lib_code', 'in', codes).orderBy('sort').orderBy('code_key').execute();
  const perClassifier = await db
    .selectFrom('instance_classifiers as c')
    .innerJoin('instances as i', 'i.id', 'c.instance_id')
    .select(['c.classifier_id', (eb) => eb.fn.countAll<number>().as('n')])
    .where('c.lib_code', 'in', codes)
    .where('i.deleted_at', 'is', null)
    .groupBy('c.classifier_id')
    .execute();
  const perAttr = await db
    .selectFrom('instance_attrs as v')
    .innerJoin('lib_attributes as a', 'a.id', 'v.attr_id')
    .innerJoin('instances as i', 'i.id', 'v.instance_id')
    .select(['v.attr_id', (eb) => eb.fn.countAll<number>().as('n')])
    .where('a.lib_code', 'in', codes)
    .where('i.deleted_at', 'is', null)
    .groupBy('v.attr_id')
    .execute();
  const classified = new Map(perClassifier.map((r) => [r.classifier_id, Number(r.n)]));
  const valued = new Map(perAttr.map((r) => [r.attr_id, Number(r.n)]));
  return codes.map((libCode) => {
    const row = (folder: 0 | 1) => sizes.find((r) => r.lib_code === libCode && Number(r.is_folder) === folder);
    const files = Number(row(0)?.n ?? 0);
    const byClassifier = classifiers.filter((c) => c.lib_code === libCode).map((c) => ({ classifierId: c.id, files: classified.get(c.id) ?? 0 }));
    return {
      libCode,
      files,
      folders: Number(row(1)?.n ?? 0),
      bytes: Number(row(0)?.bytes ?? 0),
      classifiers: byClassifier.length,
      attributes: attributes.filter((a) => a.lib_code === libCode).length,
      unclassified: files - byClassifier.reduce((n, c) => n + c.files, 0),
      byClassifier,
      byAttribute: attributes.filter((a) => a.lib_code === libCode).map((a) => ({ attrId: a.id, values: valued.get(a.id) ?? 0 })),
    };
  });
}

export interface LibConfig {
  versionMaxCount: number | null;
  versionMaxDays: number | null;
  adminOnly: boolean;
}

export async function libConfig(db: Db, libCode: string): Promise<LibConfig | null> {
  const r = await db.selectFrom('business_libs').select(['version_max_count', 'version_max_days', 'admin_only']).where('lib_code', '=', libCode).executeTakeFirst();
  return r ? { versionMaxCount: r.version_max_count, versionMaxDays: r.version_max_days, adminOnly: r.admin_only === 1 } : null;
}

/** Changes the fields given (null: back to the server default); one statement, so a change lands whole. */
export async function setLibConfig(db: Db, libCode: string, c: Partial<LibConfig>): Promise<void> {
  const values = Object.fromEntries(
    Object.entries({ version_max_count: c.versionMaxCount, version_max_days: c.versionMaxDays, admin_only: c.adminOnly === undefined ? undefined : c.adminOnly ? 1 : 0 })
      .filter(([, v]) => v !== undefined),
  );
  if (Object.keys(values).length === 0) return;
  await db.updateTable('business_libs').set(values).where('lib_code', '=', libCode).execute();
}
