// Tables of internal shares (migration 009, issue #17 part 1).

/** One owner's share of one item. */
export interface SharesTable {
  id: string;
  instance_id: string;
  owner_id: string;
  created_at: number;
  updated_at: number;
}

/** A recipient of a share with their share role (a builtin groupShare_* role id, which is its code). */
export interface ShareRecipientsTable {
  share_id: string;
  kind: 'user' | 'dept' | 'group';
  recipient_id: string;
  role_id: string;
}

export interface SharesTables {
  shares: SharesTable;
  share_recipients: ShareRecipientsTable;
}
