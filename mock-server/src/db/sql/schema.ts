// The database as Kysely sees it: one interface per table, columns as stored (snake_case). The same on SQLite
// and PostgreSQL: times are epoch milliseconds and flags are 0/1 numbers on both (pg's bigint strings become
// numbers in postgres.ts). Repositories map rows to their own camelCase shapes.
//
// Generated<T>: the column has a default (or is an auto-incremented id), so an insert may leave it out.
import type { Generated } from 'kysely';
import type { LinksTables } from './schema-links.ts';
import type { BizLibsTables } from './schema-bizlibs.ts';
import type { StorageTables } from './schema-storage.ts';
import type { PullSyncTables } from './schema-pullsync.ts';
import type { ReplicationTables } from './schema-replication.ts';
import type { FileTypeCategory } from '../../files/names.ts';
import type { IdentityTables } from './schema-identity.ts';
import type { SharesTables } from './schema-shares.ts';
import type { DlpTables } from './schema-dlp.ts';

/** 0 or 1: a boolean as stored on both databases. */
export type Flag = 0 | 1;
export type SpaceKind = 'user' | 'group' | 'dept';

export interface DepartmentsTable {
  id: string;
  name: string;
  parent_id: string | null;
  quota_bytes: number | null; // null = unlimited
  used_bytes: Generated<number>;
  created_at: number;
  /** Lower-cased name: unique among siblings (004). */
  name_key: Generated<string>;
  sort: Generated<number>;
  /** Materialised id path from the root, `/root/a/b/` (004); a subtree is a prefix. */
  path: Generated<string>;
  /** The directory OU a synced department stands for (012). */
  external_id: Generated<string | null>;
}

export interface UsersTable {
  id: string;
  user_name: string;
  user_name_key: string; // lower-cased user_name: names are unique case-insensitively
  real_name: Generated<string>;
  dept_id: string | null;
  password_hash: string;
  is_enabled: Generated<Flag>;
  expired_time: Generated<number>; // epoch ms; 1 = never expires (spec)
  is_admin: Generated<Flag>;
  language_id: string | null;
  platform_id: Generated<string>;
  quota_bytes: number | null;
  used_bytes: Generated<number>;
  must_change_password: Generated<Flag>;
  password_changed_at: number;
  created_at: number;
  updated_at: number;
  deleted_at: number | null;
  email: Generated<string>;
  phone: Generated<string>;
  /** 'local', 'oidc' or 'ldap' (012). */
  auth_source: Generated<string>;
  external_id: Generated<string | null>;
  /** 1 once the user has marked an item (a favourite or a label): listings skip the marks otherwise (027). */
  has_marks: Generated<Flag>;
}

/** Department managers (004): they administer their department's subtree. */
export interface DeptManagersTable {
  dept_id: string;
  user_id: string;
}

/** Labels on accounts (004); label_key is the lower-cased label. */
export interface UserLabelsTable {
  user_id: string;
  label: string;
  label_key: string;
}

export interface GroupsTable {
  id: string;
  name: string;
  owner_id: string;
  dept_id: string | null;
  quota_bytes: number | null;
  used_bytes: Generated<number>;
  created_at: number;
  dissolved_at: number | null;
  description: Generated<string>;
  name_key: string; // lower-cased name: unique among live groups (008)
  updated_at: Generated<number>;
}

export interface GroupMembersTable {
  group_id: string;
  user_id: string;
  role_code: Generated<string>;
  parent_user_id: string | null;
  level: Generated<1 | 2>; // 1 full member, 2 second-level member (rights on named folders only) (008)
  created_at: Generated<number>;
}

/** An offer of a group to another member (008). */
export interface GroupHandoversTable {
  id: string;
  group_id: string;
  from_user_id: string;
  to_user_id: string;
  status: 'pending' | 'accepted' | 'declined' | 'cancelled';
  created_at: number;
  decided_at: number | null;
}

export interface SessionsTable {
  id: string; // SHA-256 of the token
  user_id: string;
  kind: 'cookie' | 'token';
  created_at: number;
  last_seen_at: number;
  expires_at: number;
  idle_ms: number;
  ip: Generated<string>;
  user_agent: Generated<string>;
  revoked_at: number | null;
}

/** Fixed-window counters shared by every node (counters.ts): sign-in limits today, share codes later. */
export interface RateLimitsTable {
  key: string;
  count: number;
  window_start: number;
}

export interface BusinessLibsTable {
  id: string;
  lib_code: string;
  lib_name: string;
  lib_name_en: string;
  web_icon: Generated<string>;
  is_show: Generated<Flag>;
  is_home: Generated<Flag>;
  admin_only: Generated<Flag>;
  sort: Generated<number>;
  /** History versions kept per file, and their age in days; null = the server's defaults (006). */
  version_max_count: number | null;
  version_max_days: number | null;
  /** 0 = disabled (014). */
  is_enabled: Generated<Flag>;
  /** 1 = made by an administrator; NetDisk and SysConfig are built in (014). */
  custom: Generated<Flag>;
}

export interface MenusTable {
  id: string;
  lib_code: string;
  menu_code: string;
  menu_name: string;
  menu_str: string;
  menu_url: string;
  parent_id: Generated<string>;
  menu_index: Generated<number>;
  menu_show: Generated<Flag>;
  menu_icon: Generated<string>;
}

export interface BlobsTable {
  id: string;
  sha256: string;
  size: number;
  bucket: string;
  object_key: string;
  ref_count: Generated<number>;
  verified: Generated<Flag>;
  created_at: number;
  /** The storage connection holding the object ('0' = the embedded store) (015). */
  connection_id: Generated<string>;
}

export interface InstancesTable {
  id: string;
  lib_code: Generated<string>;
  instance_type: Generated<string>; // '1' personal, '2' group, '3' department
  space_kind: SpaceKind;
  space_id: string;
  parent_id: string | null; // null only for a library root
  name: string;
  name_key: string; // lower-cased name: unique per folder among live entries
  is_folder: Flag;
  size: Generated<number>;
  ext: Generated<string>;
  file_type: Generated<FileTypeCategory>; // fileTypeOf: the contract's Instance.fileType values
  filter_cat: Generated<number>;
  blob_id: string | null;
  version: Generated<number>;
  remark: Generated<string>;
  created_by: string;
  created_at: number;
  updated_at: number;
  deleted_at: number | null;
  recycle_id: string | null;
  /** Live (deleted_at IS NULL) child folders; kept current in the transaction of every change. */
  child_folders: Generated<number>;
  /** Live child files, likewise: a listing's total is child_folders + child_files, never a COUNT(*). */
  child_files: Generated<number>;
}

export interface FileVersionsTable {
  id: string;
  instance_id: string;
  version: number;
  blob_id: string;
  size: number;
  created_by: string;
  created_at: number;
}

export interface RecycleEntriesTable {
  id: string;
  space_kind: string;
  space_id: string;
  instance_id: string;
  original_parent_id: string | null;
  level: Generated<number>; // 1 recycle bin, 2 second-level recycle bin
  deleted_by: string;
  deleted_at: number;
  total_bytes: Generated<number>;
  /** Folder names from below the library root to where it was deleted from (006). */
  original_path: Generated<string>;
  /** When it moved to the second-level bin (level 2), epoch ms (006). */
  purged_at: number | null;
}

export type WriteMode = 'put' | 'multipart' | 'server';

export interface UploadSessionsTable {
  id: string;
  user_id: string;
  space_kind: string;
  space_id: string;
  parent_id: string;
  lib_code: string;
  name: string;
  size: number;
  sha256: string;
  bucket: string;
  object_key: string;
  part_size: number;
  part_count: number;
  upload_id: string | null;
  conflict: Generated<string>;
  existing_id: string | null;
  reserved_bytes: number;
  created_at: number;
  updated_at: number;
  expires_at: number;
  write_mode: WriteMode | null;
  sign_until: Generated<number>;
  ended_at: number | null;
  /** The storage connection the session's bytes go to, with `bucket` (022). */
  connection_id: Generated<string>;
}

export interface UploadPartsTable {
  session_id: string;
  part_number: number;
  etag: string;
  size: number;
}

export interface ProofChallengesTable {
  id: string;
  user_id: string;
  session_id: string;
  blob_id: string;
  offset: number;
  length: number;
  expires_at: number;
}

export interface OpLogsTable {
  id: Generated<number>;
  at: number;
  user_id: string | null;
  user_name: Generated<string>;
  op_type: string;
  op_subject: Generated<string>;
  object_id: Generated<string>;
  object_name: Generated<string>;
  device: Generated<string>;
  ip: Generated<string>;
  trace_id: Generated<string>;
  result: 'success' | 'failure';
  detail: Generated<string>;
}

export interface SysConfigTable {
  config_key: string;
  config_value: string;
  updated_at: number;
  /** Typed entries of the administration console (013): see config-store.ts. */
  config_type: Generated<string>;
  description: Generated<string>;
  options: Generated<string>; // JSON array of an enum entry's values, or ''
  public_read: Generated<Flag>;
  custom: Generated<Flag>; // added by an administrator (the server's own settings are described in code)
}

/** Change counters per area (013): nodes keep what they read until the counter moves. */
export interface AdminVersionsTable {
  name: string;
  version: number;
}

/** The IP white list (013). */
export interface IpWhitelistTable {
  id: string;
  ip_value: string;
  kind: 'single' | 'cidr' | 'range';
  target_type: 'all' | 'role' | 'dept' | 'user';
  target_id: string;
  scope: 'console' | 'drive';
  enabled: Flag;
  remark: string;
  created_by: string;
  created_at: number;
  updated_at: number;
}

export interface DownloadTicketsTable {
  id: string; // SHA-256 (hex) of the ticket
  user_id: string;
  kind: 'zip' | 'preview';
  payload: string; // JSON
  expires_at: number;
  used_at: number | null;
}

/** Sign-in CAPTCHA challenges (auth/captcha.ts): single-use, short-lived, shared by every node. */
export interface CaptchasTable {
  id: string;
  answer_hash: string; // hex HMAC-SHA256(secret, id ":" normalised answer)
  ip: string;
  expires_at: number;
}

export type JobState = 'queued' | 'running' | 'done' | 'failed';

/** The job queue (jobs.ts). A row is also what a status screen shows. */
export interface JobsTable {
  id: Generated<number>;
  kind: string;
  /** At most one pending (queued or running) job per key; null = no deduplication. */
  dedupe_key: string | null;
  payload: Generated<string>; // JSON text
  state: Generated<JobState>;
  attempts: Generated<number>;
  max_attempts: Generated<number>;
  run_at: number;
  lease_until: number | null;
  locked_by: string | null;
  last_error: string | null;
  created_at: number;
  updated_at: number;
  finished_at: number | null;
}

/** Named leases: "this work runs on one node at a time" (leases.ts). */
export interface LeasesTable {
  name: string;
  holder: string;
  expires_at: number;
  acquired_at: number;
}

/** A user's favourite (007). */
export interface FavouritesTable {
  user_id: string;
  instance_id: string;
  created_at: number;
}

/** A user's own label (007); name_key is the NFC lower-cased name, unique per user. */
export interface LabelsTable {
  id: string;
  user_id: string;
  name: string;
  name_key: string;
  color: string;
  created_at: number;
}

export interface InstanceLabelsTable {
  label_id: string;
  instance_id: string;
  user_id: string;
  created_at: number;
}

/** An administrator's document template (007): holds a reference on its blob. */
export interface TemplatesTable {
  id: string;
  name: string;
  kind: 'docx' | 'xlsx' | 'pptx' | 'txt';
  blob_id: string;
  size: number;
  created_by: string;
  created_at: number;
}

/** Roles: named sets of authorities (005). Builtin roles are the seeded catalogue; their ids are their codes. */
export interface RolesTable {
  id: string;
  code: string;
  code_key: string; // lower-cased code: unique case-insensitively
  name: string;
  name_en: string;
  kind: 'file' | 'group' | 'groupShare';
  builtin: Generated<Flag>;
  deny: Generated<Flag>; // an explicit deny role (disable): holds nothing, and wins at its level
  sort: Generated<number>;
  created_at: number;
}

export interface RoleAuthsTable {
  role_id: string;
  permission: string; // one of the contract's x-hcs-permissions
}

/** A role granted to a user or a department (reaching its subtree) on an instance, inherited downwards (005). */
export interface GrantsTable {
  id: string;
  role_id: string;
  subject_kind: 'user' | 'dept';
  subject_id: string;
  instance_id: string;
  created_by: string;
  created_at: number;
}

export interface Schema extends IdentityTables, StorageTables, PullSyncTables, ReplicationTables, DlpTables, BizLibsTables, LinksTables, SharesTables {
  departments: DepartmentsTable;
  users: UsersTable;
  dept_managers: DeptManagersTable;
  user_labels: UserLabelsTable;
  groups: GroupsTable;
  group_members: GroupMembersTable;
  group_handovers: GroupHandoversTable;
  sessions: SessionsTable;
  rate_limits: RateLimitsTable;
  business_libs: BusinessLibsTable;
  menus: MenusTable;
  blobs: BlobsTable;
  instances: InstancesTable;
  file_versions: FileVersionsTable;
  recycle_entries: RecycleEntriesTable;
  upload_sessions: UploadSessionsTable;
  upload_parts: UploadPartsTable;
  proof_challenges: ProofChallengesTable;
  op_logs: OpLogsTable;
  sys_config: SysConfigTable;
  admin_versions: AdminVersionsTable;
  ip_whitelist: IpWhitelistTable;
  download_tickets: DownloadTicketsTable;
  captchas: CaptchasTable;
  jobs: JobsTable;
  leases: LeasesTable;
  roles: RolesTable;
  role_auths: RoleAuthsTable;
  grants: GrantsTable;
  favourites: FavouritesTable;
  labels: LabelsTable;
  instance_labels: InstanceLabelsTable;
  templates: TemplatesTable;
}
