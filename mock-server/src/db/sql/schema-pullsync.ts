// The pull-sync table (migration 017_pullsync), beside schema.ts so the pull-sync work edits its own file.
import type { Generated } from 'kysely';

export interface PullSyncsTable {
  id: string;
  user_id: string;
  sync_type: 'personal' | 'group';
  server_url: string;
  remote_user: string;
  group_name: string | null;
  /** The remote session token sealed under the master key while the job may run; null once it ended. */
  token_enc: string | null;
  state: 'running' | 'done' | 'failed';
  files: Generated<number>;
  skipped: Generated<number>;
  failed_files: Generated<number>;
  bytes: Generated<number>;
  error: string | null;
  created_at: number;
  updated_at: number;
  finished_at: number | null;
}

export interface PullSyncTables {
  pull_syncs: PullSyncsTable;
}
