// Cross-site replication tables (migration 016_replication), beside schema.ts so the replication work edits its own file.
export interface SyncConfigsTable {
  id: string;
  lib_code: string;
  /** A folder of the library, or null for all of it. */
  folder_id: string | null;
  source_site: string;
  /** JSON array of site ids. */
  target_sites: string;
  created_at: number;
  updated_at: number;
  /** When a sweep last found every blob under the config recorded (023_sync_status); null until then and after an edit. */
  caught_up_at: number | null;
}

export type ReplicaState = 'pending' | 'synced' | 'failed';

export interface BlobReplicasTable {
  blob_id: string;
  site_id: string;
  state: ReplicaState;
  object_key: string;
  size: number;
  error: string | null;
  queued_at: number;
  synced_at: number | null;
  gone_at: number | null;
  updated_at: number;
}

export interface ReplicationTables {
  sync_configs: SyncConfigsTable;
  blob_replicas: BlobReplicasTable;
}
