// Tables of public links (migration 010_links): see that migration for what each holds.
import type { Generated } from 'kysely';
import type { Flag } from './schema.ts';

export interface LinksTable {
  id: string;
  link_key: string;
  owner_id: string;
  share_type: 'download' | 'upload';
  code_hash: string | null;
  expire_at: number | null;
  max_views: number | null;
  max_downloads: number | null;
  view_count: Generated<number>;
  download_count: Generated<number>;
  preview_only: Generated<Flag>;
  verify_code: Generated<Flag>;
  watermark: Generated<Flag>;
  upload_max_bytes: number | null;
  upload_max_files: number | null;
  upload_allow_list: Generated<Flag>;
  upload_count: Generated<number>;
  upload_bytes: Generated<number>;
  status: 'active' | 'cancelled' | 'deleted';
  token_epoch: Generated<number>;
  created_at: number;
  updated_at: number;
}

export interface LinkItemsTable {
  link_id: string;
  instance_id: string;
  position: number;
}

export interface LinkTokensTable {
  id: string; // SHA-256 of the token
  link_id: string;
  epoch: number;
  ip: string;
  created_at: number;
  expires_at: number;
  revoked: Generated<Flag>;
}

export interface LinkGrantsTable {
  token_id: string;
  instance_id: string;
  created_at: number;
}

export interface LinkUploadsTable {
  link_id: string;
  instance_id: string;
  token_id: string;
  created_at: number;
}

export interface LinkSessionsTable {
  session_id: string;
  link_id: string;
  token_id: string;
  created_at: number;
}

export interface LinkLogsTable {
  id: Generated<number>;
  link_id: string;
  owner_id: string;
  opt_subject: string;
  opt_type: string;
  opt_obj: string;
  opt_obj_name: string;
  opt_device: string;
  ip: string;
  created_at: number;
}

export interface LinkLockoutsTable {
  key: string;
  failures: number;
  last_at: number;
  locked_until: number;
}

export interface LinkPolicyTable {
  id: number;
  code_required: Flag;
  max_expire_days: number | null;
  allowed_roles: string; // JSON array of role codes
  updated_at: number;
}

export interface ShareCallbacksTable {
  platform_id: string;
  url: string;
  key_nonce: string;
  created_at: number;
  updated_at: number;
}

export interface ShareCallbackDeliveriesTable {
  link_id: string;
  platform_id: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: Generated<number>;
  http_status: number | null;
  updated_at: number;
}

export interface LinksTables {
  links: LinksTable;
  link_items: LinkItemsTable;
  link_tokens: LinkTokensTable;
  link_grants: LinkGrantsTable;
  link_uploads: LinkUploadsTable;
  link_sessions: LinkSessionsTable;
  link_logs: LinkLogsTable;
  link_lockouts: LinkLockoutsTable;
  link_policy: LinkPolicyTable;
  share_callbacks: ShareCallbacksTable;
  share_callback_deliveries: ShareCallbackDeliveriesTable;
}
