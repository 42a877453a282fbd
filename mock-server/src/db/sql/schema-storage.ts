// Tables of storage connections, nodes, clusters and sites (migration 015_storage), beside schema.ts so the storage
// work edits its own file.
import type { Generated } from 'kysely';

export interface StorageConnectionsTable {
  id: string;
  name: string;
  name_key: string;
  endpoint: string;
  region: string;
  bucket: string;
  access_key: string;
  /** Sealed under the master key (storage/master-key.ts); never returned. */
  secret_enc: string;
  /** Comma-separated SSE modes the endpoint offers: AES256, aws:kms. */
  sse: Generated<string>;
  created_at: number;
  updated_at: number;
}

export interface StoragePoliciesTable {
  lib_code: string;
  connection_id: string;
  bucket: string;
  encryption: 'none' | 'aes256-gcm' | 'sse-s3' | 'sse-kms';
  updated_at: number;
  /** The KMS key of an sse-kms policy; '' = the bucket's default key (022). */
  kms_key_id: Generated<string>;
}

export interface SitesTable {
  id: string;
  name: string;
  name_key: string;
  region: Generated<string>;
  connection_id: string;
  created_at: number;
}

export interface ClustersTable {
  id: string;
  name: string;
  name_key: string;
  site_id: string | null;
  created_at: number;
}

export interface NodesTable {
  id: string;
  name: string;
  address: string;
  site: Generated<string>;
  version: string;
  started_at: number;
  heartbeat_at: number;
  cluster_id: Generated<string | null>;
}

export interface StorageTables {
  storage_connections: StorageConnectionsTable;
  storage_policies: StoragePoliciesTable;
  sites: SitesTable;
  clusters: ClustersTable;
  nodes: NodesTable;
}
