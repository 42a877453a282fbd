// 005: roles (named sets of authorities), their authorities, and grants of a role to a user or a department on an
// instance (issue #14). The spec's role catalogue is seeded here as builtin roles whose ids are their codes; the
// seed is frozen with the migration (a later change to it is a new migration), and the access decision reads the
// builtin roles' authorities from SEEDED_ROLES because builtin roles cannot be edited.
import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import type { SqlDialect } from '../tx.ts';
import { columnTypes } from './column-types.ts';

type P = 'view' | 'preview' | 'download' | 'upload' | 'create' | 'edit' | 'delete' | 'version' | 'share' | 'shareExternal' | 'manage';

const ALL: P[] = ['view', 'preview', 'download', 'upload', 'create', 'edit', 'delete', 'version', 'share', 'shareExternal', 'manage'];
const READER: P[] = ['view', 'preview'];
const DOWNLOADER: P[] = [...READER, 'download'];
const UPLOADER: P[] = [...READER, 'upload', 'create'];
const EDITOR: P[] = [...DOWNLOADER, 'upload', 'create', 'edit', 'version'];
const OPERATOR: P[] = [...EDITOR, 'delete'];
const DEFAULT: P[] = [...EDITOR, 'share'];

export interface SeededRole {
  code: string;
  name: string;
  nameEn: string;
  kind: 'file' | 'group' | 'groupShare';
  deny: boolean;
  authorities: readonly P[];
}

const role = (code: string, name: string, nameEn: string, kind: SeededRole['kind'], authorities: readonly P[], deny = false): SeededRole =>
  ({ code, name, nameEn, kind, deny, authorities });

export const SEEDED_ROLES: readonly SeededRole[] = [
  role('observer', '观察者', 'Observer', 'file', ['view']),
  role('reader', '阅读者', 'Reader', 'file', READER),
  role('downloader', '下载者', 'Downloader', 'file', DOWNLOADER),
  role('uploader', '上传者', 'Uploader', 'file', UPLOADER),
  role('editor', '编辑者', 'Editor', 'file', EDITOR),
  role('operator', '操作者', 'Operator', 'file', OPERATOR),
  role('manager', '管理者', 'Manager', 'file', ALL),
  role('sharer', '分享者', 'Sharer', 'file', [...DOWNLOADER, 'share', 'shareExternal']),
  role('sharedby', '被分享者', 'Shared with', 'file', DOWNLOADER),
  role('design', '设计者', 'Designer', 'file', DEFAULT),
  role('disable', '禁止访问', 'No access', 'file', [], true),
  role('defaultrole', '默认角色', 'Default role', 'file', DEFAULT),
  role('groupdefaultrole', '群组默认角色', 'Group default role', 'file', DEFAULT),
  role('group_administrator', '群组管理员', 'Group administrator', 'group', ALL),
  role('group_ordinary_members', '群组普通成员', 'Group member', 'group', DEFAULT),
  role('group_leader', '群组负责人', 'Group leader', 'group', ALL.filter((p) => p !== 'manage')),
  role('file_leader', '文件负责人', 'File leader', 'group', OPERATOR),
  role('groupShare_downloader', '群组共享下载者', 'Group share downloader', 'groupShare', DOWNLOADER),
  role('groupShare_manager', '群组共享管理者', 'Group share manager', 'groupShare', ALL),
  role('groupShare_operator', '群组共享操作者', 'Group share operator', 'groupShare', OPERATOR),
  role('groupShare_reader', '群组共享阅读者', 'Group share reader', 'groupShare', READER),
  role('groupShare_sharedby', '群组共享被分享者', 'Group share shared with', 'groupShare', DOWNLOADER),
  role('groupShare_uploader', '群组共享上传者', 'Group share uploader', 'groupShare', UPLOADER),
  role('groupShare_default_role', '群组共享默认角色', 'Group share default role', 'groupShare', DOWNLOADER),
  role('groupShare_view_only', '仅查看', 'View only', 'groupShare', ['view']),
  role('groupShare_download', '可下载', 'Can download', 'groupShare', DOWNLOADER),
  role('groupShare_edit', '可编辑', 'Can edit', 'groupShare', EDITOR),
  role('groupShare_external_sharing', '可外链分享', 'Can share externally', 'groupShare', [...DOWNLOADER, 'shareExternal']),
  role('groupShare_manager_new', '群组共享管理者（新）', 'Group share manager (new)', 'groupShare', ALL),
];

export function rolesMigration(dialect: SqlDialect): Migration {
  return {
    async up(db: Kysely<unknown>) {
      const t = columnTypes(dialect);
      await db.schema
        .createTable('roles')
        .addColumn('id', t.text, (c) => c.primaryKey())
        .addColumn('code', t.text, (c) => c.notNull())
        // lower-cased code: codes are unique case-insensitively
        .addColumn('code_key', t.text, (c) => c.notNull().unique())
        .addColumn('name', t.text, (c) => c.notNull())
        .addColumn('name_en', t.text, (c) => c.notNull())
        .addColumn('kind', t.text, (c) => c.notNull())
        .addColumn('builtin', t.flag, (c) => c.notNull().defaultTo(0))
        .addColumn('deny', t.flag, (c) => c.notNull().defaultTo(0))
        .addColumn('sort', t.int, (c) => c.notNull().defaultTo(1000))
        .addColumn('created_at', t.time, (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('role_auths')
        .addColumn('role_id', t.text, (c) => c.notNull().references('roles.id').onDelete('cascade'))
        .addColumn('permission', t.text, (c) => c.notNull())
        .addPrimaryKeyConstraint('role_auths_pk', ['role_id', 'permission'])
        .execute();
      await db.schema
        .createTable('grants')
        .addColumn('id', t.text, (c) => c.primaryKey())
        // restrict: a role in use cannot be deleted (deleteRoleInfo answers ROLE_IN_USE before this fires)
        .addColumn('role_id', t.text, (c) => c.notNull().references('roles.id').onDelete('restrict'))
        .addColumn('subject_kind', t.text, (c) => c.notNull())
        .addColumn('subject_id', t.text, (c) => c.notNull())
        .addColumn('instance_id', t.text, (c) => c.notNull().references('instances.id').onDelete('cascade'))
        .addColumn('created_by', t.text, (c) => c.notNull())
        .addColumn('created_at', t.time, (c) => c.notNull())
        .addUniqueConstraint('grants_unique', ['role_id', 'subject_kind', 'subject_id', 'instance_id'])
        .execute();
      await db.schema.createIndex('grants_instance').on('grants').column('instance_id').execute();
      await db.schema.createIndex('grants_subject').on('grants').columns(['subject_kind', 'subject_id']).execute();

      const now = Date.now();
      const seeded = SEEDED_ROLES.map((r, i) => ({
        id: r.code, code: r.code, code_key: r.code.toLowerCase(), name: r.name, name_en: r.nameEn, kind: r.kind,
        builtin: 1, deny: r.deny ? 1 : 0, sort: (i + 1) * 10, created_at: now,
      }));
      const anyDb = db as Kysely<{ roles: (typeof seeded)[number]; role_auths: { role_id: string; permission: string } }>;
      await anyDb.insertInto('roles').values(seeded).execute();
      await anyDb.insertInto('role_auths').values(SEEDED_ROLES.flatMap((r) => r.authorities.map((p) => ({ role_id: r.code, permission: p })))).execute();
    },
  };
}
