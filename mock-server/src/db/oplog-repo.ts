// Operation log: who did what to which object, from where, when, and whether it worked.
import type { Db } from './sql/tx.ts';

export interface OpLogEntry {
  userId: string | null;
  userName: string;
  opType: string;
  opSubject: string;
  objectId: string;
  objectName: string;
  device: string;
  ip: string;
  traceId: string;
  result: 'success' | 'failure';
  detail: string;
}

export async function insertOpLogs(db: Db, entries: OpLogEntry[], at = Date.now()): Promise<void> {
  if (entries.length === 0) return;
  await db
    .insertInto('op_logs')
    .values(
      entries.map((e) => ({
        at,
        user_id: e.userId,
        user_name: e.userName,
        op_type: e.opType,
        op_subject: e.opSubject,
        object_id: e.objectId.slice(0, 2000),
        object_name: e.objectName.slice(0, 1000),
        device: e.device.slice(0, 300),
        ip: e.ip,
        trace_id: e.traceId,
        result: e.result,
        detail: e.detail.slice(0, 500),
      })),
    )
    .execute();
}

export async function insertOpLog(db: Db, e: OpLogEntry, at = Date.now()): Promise<void> {
  await insertOpLogs(db, [e], at);
}

export interface OpLogRow extends OpLogEntry {
  id: number;
  at: number;
}

export async function listOpLogs(db: Db, opts: { userId?: string; limit?: number; beforeId?: number } = {}): Promise<OpLogRow[]> {
  let q = db
    .selectFrom('op_logs')
    .select([
      'id', 'at', 'user_id as userId', 'user_name as userName', 'op_type as opType', 'op_subject as opSubject', 'object_id as objectId',
      'object_name as objectName', 'device', 'ip', 'trace_id as traceId', 'result', 'detail',
    ])
    .orderBy('id', 'desc')
    .limit(opts.limit ?? 100);
  if (opts.userId) q = q.where('user_id', '=', opts.userId);
  if (opts.beforeId) q = q.where('id', '<', opts.beforeId);
  return q.execute();
}
