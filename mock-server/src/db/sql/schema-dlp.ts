// Tables of DLP and approval (migration 011_dlp), kept beside schema.ts so this work edits its own file.
import type { Generated } from 'kysely';
import type { Flag } from './schema.ts';

export interface DlpRulesTable {
  id: string;
  kind: 'extension' | 'maxSize' | 'label' | 'keyword';
  value: string;
  enabled: Generated<Flag>;
  remark: Generated<string>;
  created_at: number;
  updated_at: number;
}

export interface DlpChecksTable {
  id: string;
  requester_id: string;
  dept_id: string;
  /** JSON array of instance ids, in the order asked. */
  instance_ids: string;
  /** The sorted ids joined by ',': one pending request per requester and key. */
  item_key: string;
  /** JSON array of the items' plain names when asked. */
  items: string;
  /** JSON array of DlpHit when asked. */
  hits: string;
  reason: Generated<string>;
  status: 'pending' | 'approved' | 'rejected';
  comment: Generated<string>;
  decided_by: string | null;
  created_at: number;
  decided_at: number | null;
}

export interface DlpTables {
  dlp_rules: DlpRulesTable;
  dlp_checks: DlpChecksTable;
}
