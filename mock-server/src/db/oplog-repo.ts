// Operation log: who did what to which object, from where, when, and whether it worked.
import type { Db } from './database.ts';

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

export function insertOpLog(db: Db, e: OpLogEntry, at = Date.now()): void {
  db.prepare(
    `INSERT INTO op_logs (at, user_id, user_name, op_type, op_subject, object_id, object_name, device, ip, trace_id, result, detail)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(at, e.userId, e.userName, e.opType, e.opSubject, e.objectId.slice(0, 2000), e.objectName.slice(0, 1000), e.device.slice(0, 300), e.ip, e.traceId, e.result, e.detail.slice(0, 500));
}

export interface OpLogRow extends OpLogEntry {
  id: number;
  at: number;
}

export function listOpLogs(db: Db, opts: { userId?: string; limit?: number; beforeId?: number } = {}): OpLogRow[] {
  const where: string[] = [];
  const args: (string | number)[] = [];
  if (opts.userId) {
    where.push('user_id = ?');
    args.push(opts.userId);
  }
  if (opts.beforeId) {
    where.push('id < ?');
    args.push(opts.beforeId);
  }
  const sql = `SELECT id, at, user_id AS userId, user_name AS userName, op_type AS opType, op_subject AS opSubject,
    object_id AS objectId, object_name AS objectName, device, ip, trace_id AS traceId, result, detail
    FROM op_logs ${where.length ? 'WHERE ' + where.join(' AND ') : ''} ORDER BY id DESC LIMIT ?`;
  return db.prepare(sql).all(...args, opts.limit ?? 100) as unknown as OpLogRow[];
}
