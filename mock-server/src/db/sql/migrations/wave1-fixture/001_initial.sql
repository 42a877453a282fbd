-- Tables for the whole spec. Later features fill the ones they need; columns that hold wire values keep
-- the spec's meaning in a comment. Times are epoch milliseconds. Ids are random url-safe strings.

CREATE TABLE departments (
  id          TEXT PRIMARY KEY,
  name        TEXT NOT NULL,
  parent_id   TEXT REFERENCES departments(id) ON DELETE RESTRICT,
  quota_bytes INTEGER,                    -- NULL = unlimited
  used_bytes  INTEGER NOT NULL DEFAULT 0,
  created_at  INTEGER NOT NULL
);

CREATE TABLE users (
  id                   TEXT PRIMARY KEY,
  user_name            TEXT NOT NULL,
  user_name_key        TEXT NOT NULL UNIQUE, -- lower-cased user_name: names are unique case-insensitively
  real_name            TEXT NOT NULL DEFAULT '',
  dept_id              TEXT REFERENCES departments(id) ON DELETE SET NULL,
  password_hash        TEXT NOT NULL,        -- scrypt$N$r$p$salt$hash
  is_enabled           INTEGER NOT NULL DEFAULT 1,
  expired_time         INTEGER NOT NULL DEFAULT 1, -- epoch ms; 1 = never expires (spec)
  is_admin             INTEGER NOT NULL DEFAULT 0,
  language_id          TEXT,
  platform_id          TEXT NOT NULL DEFAULT 'NetDisk',
  quota_bytes          INTEGER,              -- NULL = unlimited
  used_bytes           INTEGER NOT NULL DEFAULT 0, -- files, history versions and recycle bin
  must_change_password INTEGER NOT NULL DEFAULT 0,
  password_changed_at  INTEGER NOT NULL,
  created_at           INTEGER NOT NULL,
  updated_at           INTEGER NOT NULL,
  deleted_at           INTEGER
);

CREATE TABLE roles (
  id    TEXT PRIMARY KEY,
  code  TEXT NOT NULL UNIQUE,  -- catalogue names of spec section 3 (observer, manager, group_leader, ...)
  name  TEXT NOT NULL,
  kind  TEXT NOT NULL CHECK (kind IN ('system', 'group', 'groupShare')),
  auths TEXT NOT NULL DEFAULT '[]' -- JSON array of permission codes
);

CREATE TABLE user_roles (
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  role_id TEXT NOT NULL REFERENCES roles(id) ON DELETE CASCADE,
  PRIMARY KEY (user_id, role_id)
);

CREATE TABLE groups (
  id          TEXT PRIMARY KEY,
  name        TEXT NOT NULL,
  owner_id    TEXT NOT NULL REFERENCES users(id),
  dept_id     TEXT REFERENCES departments(id) ON DELETE SET NULL,
  quota_bytes INTEGER,
  used_bytes  INTEGER NOT NULL DEFAULT 0,
  created_at  INTEGER NOT NULL,
  dissolved_at INTEGER
);

CREATE TABLE group_members (
  group_id  TEXT NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
  user_id   TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  role_code TEXT NOT NULL DEFAULT 'group_ordinary_members',
  parent_user_id TEXT REFERENCES users(id), -- second-level group users
  PRIMARY KEY (group_id, user_id)
);

CREATE TABLE sessions (
  id           TEXT PRIMARY KEY,       -- SHA-256 of the token; the token itself is never stored
  user_id      TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  kind         TEXT NOT NULL CHECK (kind IN ('cookie', 'token')),
  created_at   INTEGER NOT NULL,
  last_seen_at INTEGER NOT NULL,
  expires_at   INTEGER NOT NULL,       -- absolute expiry
  idle_ms      INTEGER NOT NULL,
  ip           TEXT NOT NULL DEFAULT '',
  user_agent   TEXT NOT NULL DEFAULT '',
  revoked_at   INTEGER
);
CREATE INDEX sessions_user ON sessions(user_id);

CREATE TABLE rate_limits (
  key          TEXT PRIMARY KEY,       -- e.g. login:user:alice, login:ip:10.0.0.1, share:ip:...
  count        INTEGER NOT NULL,
  window_start INTEGER NOT NULL
);

CREATE TABLE business_libs (
  id          TEXT PRIMARY KEY,
  lib_code    TEXT NOT NULL UNIQUE,
  lib_name    TEXT NOT NULL,           -- Chinese name
  lib_name_en TEXT NOT NULL,
  web_icon    TEXT NOT NULL DEFAULT '',
  is_show     INTEGER NOT NULL DEFAULT 1,
  is_home     INTEGER NOT NULL DEFAULT 1,
  admin_only  INTEGER NOT NULL DEFAULT 0,
  sort        INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE menus (
  id          TEXT PRIMARY KEY,
  lib_code    TEXT NOT NULL,
  menu_code   TEXT NOT NULL,
  menu_name   TEXT NOT NULL,           -- English title
  menu_str    TEXT NOT NULL,           -- Chinese title
  menu_url    TEXT NOT NULL,
  parent_id   TEXT NOT NULL DEFAULT '0',
  menu_index  INTEGER NOT NULL DEFAULT 0,
  menu_show   INTEGER NOT NULL DEFAULT 1,
  menu_icon   TEXT NOT NULL DEFAULT '',
  UNIQUE (lib_code, menu_code)
);

-- Content-addressed objects. A blob leaves storage only when ref_count reaches 0
-- (references: current file versions, history versions and recycle-bin entries all point through instances/file_versions).
CREATE TABLE blobs (
  id         TEXT PRIMARY KEY,
  sha256     TEXT NOT NULL UNIQUE,
  size       INTEGER NOT NULL,
  bucket     TEXT NOT NULL,
  object_key TEXT NOT NULL,
  ref_count  INTEGER NOT NULL DEFAULT 0 CHECK (ref_count >= 0),
  verified   INTEGER NOT NULL DEFAULT 0, -- the server hashed the stored bytes itself; only then may it serve instant transfer
  created_at INTEGER NOT NULL
);

CREATE TABLE instances (
  id          TEXT PRIMARY KEY,
  lib_code    TEXT NOT NULL DEFAULT 'NetDisk',
  instance_type TEXT NOT NULL DEFAULT '1',  -- '1' personal, '2' group, '3' department
  space_kind  TEXT NOT NULL CHECK (space_kind IN ('user', 'group', 'dept')),
  space_id    TEXT NOT NULL,                -- the user, group or department whose space holds it
  parent_id   TEXT REFERENCES instances(id) ON DELETE CASCADE, -- NULL only for a library root
  name        TEXT NOT NULL,
  name_key    TEXT NOT NULL,                -- lower-cased name: unique per folder, case-insensitively
  is_folder   INTEGER NOT NULL CHECK (is_folder IN (0, 1)),
  size        INTEGER NOT NULL DEFAULT 0,
  ext         TEXT NOT NULL DEFAULT '',
  file_type   TEXT NOT NULL DEFAULT 'other',
  filter_cat  INTEGER NOT NULL DEFAULT 9,   -- file filter category 1-9 of the spec
  blob_id     TEXT REFERENCES blobs(id),
  version     INTEGER NOT NULL DEFAULT 1,
  remark      TEXT NOT NULL DEFAULT '',
  created_by  TEXT NOT NULL REFERENCES users(id),
  created_at  INTEGER NOT NULL,
  updated_at  INTEGER NOT NULL,
  deleted_at  INTEGER,                      -- in the recycle bin (this row or an ancestor was deleted)
  recycle_id  TEXT                          -- the recycle entry that holds it
);
CREATE UNIQUE INDEX instances_unique_name ON instances(parent_id, name_key) WHERE deleted_at IS NULL;
CREATE UNIQUE INDEX instances_one_root ON instances(space_kind, space_id, lib_code) WHERE parent_id IS NULL;
-- Keyset listing: folders first, then the sort column, then id as tie-breaker.
CREATE INDEX instances_list_name ON instances(parent_id, is_folder DESC, name_key, id) WHERE deleted_at IS NULL;
CREATE INDEX instances_list_size ON instances(parent_id, is_folder DESC, size, id) WHERE deleted_at IS NULL;
CREATE INDEX instances_list_created ON instances(parent_id, is_folder DESC, created_at, id) WHERE deleted_at IS NULL;
CREATE INDEX instances_list_updated ON instances(parent_id, is_folder DESC, updated_at, id) WHERE deleted_at IS NULL;
CREATE INDEX instances_recycle ON instances(recycle_id) WHERE recycle_id IS NOT NULL;
CREATE INDEX instances_blob ON instances(blob_id) WHERE blob_id IS NOT NULL;

CREATE TABLE file_versions (
  id          TEXT PRIMARY KEY,
  instance_id TEXT NOT NULL REFERENCES instances(id) ON DELETE CASCADE,
  version     INTEGER NOT NULL,
  blob_id     TEXT NOT NULL REFERENCES blobs(id),
  size        INTEGER NOT NULL,
  created_by  TEXT NOT NULL REFERENCES users(id),
  created_at  INTEGER NOT NULL,
  UNIQUE (instance_id, version)
);

CREATE TABLE recycle_entries (
  id           TEXT PRIMARY KEY,
  space_kind   TEXT NOT NULL,
  space_id     TEXT NOT NULL,
  instance_id  TEXT NOT NULL REFERENCES instances(id) ON DELETE CASCADE, -- the top-level instance deleted
  original_parent_id TEXT,
  level        INTEGER NOT NULL DEFAULT 1,  -- 1 recycle bin, 2 second-level recycle bin
  deleted_by   TEXT NOT NULL REFERENCES users(id),
  deleted_at   INTEGER NOT NULL,
  total_bytes  INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX recycle_space ON recycle_entries(space_kind, space_id, level, deleted_at);

CREATE TABLE upload_sessions (
  id             TEXT PRIMARY KEY,          -- fId
  user_id        TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  space_kind     TEXT NOT NULL,
  space_id       TEXT NOT NULL,
  parent_id      TEXT NOT NULL REFERENCES instances(id) ON DELETE CASCADE,
  lib_code       TEXT NOT NULL,
  name           TEXT NOT NULL,
  size           INTEGER NOT NULL,
  sha256         TEXT NOT NULL,
  bucket         TEXT NOT NULL,
  object_key     TEXT NOT NULL UNIQUE,
  part_size      INTEGER NOT NULL,
  part_count     INTEGER NOT NULL,
  upload_id      TEXT,
  conflict       TEXT NOT NULL DEFAULT 'keepBoth',
  existing_id    TEXT,
  reserved_bytes INTEGER NOT NULL,          -- counted against the quota until saved or destroyed
  created_at     INTEGER NOT NULL,
  updated_at     INTEGER NOT NULL,
  expires_at     INTEGER NOT NULL
);
CREATE INDEX upload_sessions_lookup ON upload_sessions(user_id, sha256, parent_id, name);
CREATE INDEX upload_sessions_space ON upload_sessions(space_kind, space_id);
CREATE INDEX upload_sessions_expiry ON upload_sessions(expires_at);

CREATE TABLE upload_parts (
  session_id  TEXT NOT NULL REFERENCES upload_sessions(id) ON DELETE CASCADE,
  part_number INTEGER NOT NULL CHECK (part_number BETWEEN 1 AND 10000),
  etag        TEXT NOT NULL,
  size        INTEGER NOT NULL,
  PRIMARY KEY (session_id, part_number)
);

CREATE TABLE proof_challenges (
  id         TEXT PRIMARY KEY,
  user_id    TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  session_id TEXT NOT NULL REFERENCES upload_sessions(id) ON DELETE CASCADE,
  blob_id    TEXT NOT NULL REFERENCES blobs(id),
  offset     INTEGER NOT NULL,
  length     INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
);

CREATE TABLE shares (
  id              TEXT PRIMARY KEY,
  owner_id        TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  kind            TEXT NOT NULL CHECK (kind IN ('link', 'internal')),
  link_token      TEXT UNIQUE,
  extraction_hash TEXT,                     -- hashed extraction code
  expires_at      INTEGER,
  max_views       INTEGER,
  max_downloads   INTEGER,
  views           INTEGER NOT NULL DEFAULT 0,
  downloads       INTEGER NOT NULL DEFAULT 0,
  allow_upload    INTEGER NOT NULL DEFAULT 0,
  created_at      INTEGER NOT NULL,
  cancelled_at    INTEGER
);
CREATE TABLE share_items (
  share_id    TEXT NOT NULL REFERENCES shares(id) ON DELETE CASCADE,
  instance_id TEXT NOT NULL REFERENCES instances(id) ON DELETE CASCADE,
  PRIMARY KEY (share_id, instance_id)
);
CREATE TABLE share_targets (
  share_id    TEXT NOT NULL REFERENCES shares(id) ON DELETE CASCADE,
  target_type TEXT NOT NULL CHECK (target_type IN ('user', 'role', 'dept', 'group')),
  target_id   TEXT NOT NULL,
  role_code   TEXT,
  PRIMARY KEY (share_id, target_type, target_id)
);

CREATE TABLE favourites (
  user_id     TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  instance_id TEXT NOT NULL REFERENCES instances(id) ON DELETE CASCADE,
  created_at  INTEGER NOT NULL,
  PRIMARY KEY (user_id, instance_id)
);

CREATE TABLE labels (
  instance_id TEXT NOT NULL REFERENCES instances(id) ON DELETE CASCADE,
  user_id     TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  label       TEXT NOT NULL,
  PRIMARY KEY (instance_id, user_id, label)
);

CREATE TABLE op_logs (
  id          INTEGER PRIMARY KEY AUTOINCREMENT,
  at          INTEGER NOT NULL,
  user_id     TEXT,
  user_name   TEXT NOT NULL DEFAULT '',
  op_type     TEXT NOT NULL,               -- operationId of the call
  op_subject  TEXT NOT NULL DEFAULT '',    -- area (tag)
  object_id   TEXT NOT NULL DEFAULT '',
  object_name TEXT NOT NULL DEFAULT '',
  device      TEXT NOT NULL DEFAULT '',    -- user agent
  ip          TEXT NOT NULL DEFAULT '',
  trace_id    TEXT NOT NULL DEFAULT '',
  result      TEXT NOT NULL CHECK (result IN ('success', 'failure')),
  detail      TEXT NOT NULL DEFAULT ''     -- error code on failure
);
CREATE INDEX op_logs_at ON op_logs(at);
CREATE INDEX op_logs_user ON op_logs(user_id, at);

CREATE TABLE sys_config (
  config_key   TEXT PRIMARY KEY,
  config_value TEXT NOT NULL,
  updated_at   INTEGER NOT NULL
);

CREATE TABLE ip_access (
  id     TEXT PRIMARY KEY,
  cidr   TEXT NOT NULL,
  note   TEXT NOT NULL DEFAULT '',
  created_at INTEGER NOT NULL
);

CREATE TABLE cloud_connections (
  id         TEXT PRIMARY KEY,
  name       TEXT NOT NULL,
  provider   TEXT NOT NULL,
  endpoint   TEXT NOT NULL,
  region     TEXT NOT NULL,
  access_key TEXT NOT NULL,
  secret_ref TEXT NOT NULL,                -- reference to a secret, never the secret in plain text
  created_at INTEGER NOT NULL
);
CREATE TABLE buckets (
  id        TEXT PRIMARY KEY,
  cloud_id  TEXT NOT NULL REFERENCES cloud_connections(id) ON DELETE CASCADE,
  name      TEXT NOT NULL,
  UNIQUE (cloud_id, name)
);

CREATE TABLE nodes (
  id TEXT PRIMARY KEY, name TEXT NOT NULL, address TEXT NOT NULL, region_id TEXT, created_at INTEGER NOT NULL
);
CREATE TABLE regions (
  id TEXT PRIMARY KEY, kind TEXT NOT NULL CHECK (kind IN ('cluster', 'site')), name TEXT NOT NULL,
  parent_id TEXT REFERENCES regions(id) ON DELETE SET NULL, config TEXT NOT NULL DEFAULT '{}', created_at INTEGER NOT NULL
);
CREATE TABLE sync_configs (
  id TEXT PRIMARY KEY, lib_code TEXT NOT NULL, site_id TEXT REFERENCES regions(id) ON DELETE CASCADE,
  config TEXT NOT NULL DEFAULT '{}', created_at INTEGER NOT NULL, UNIQUE (lib_code, site_id)
);
CREATE TABLE ldap_config (
  id TEXT PRIMARY KEY, config TEXT NOT NULL DEFAULT '{}', updated_at INTEGER NOT NULL
);
