// History versions (contract tag "files"): the list with time, size, author and SHA-256, and rollback. The access
// gate checks the `version` permission on the file; downloads of a version go through the download calls' `version`.
import type { AppContext, Handlers } from '../context.ts';
import { ok } from '../http/envelope.ts';
import { AppError } from '../http/errors.ts';
import { getLive } from '../db/instances-repo.ts';
import { listVersions, rollback } from '../db/versions-repo.ts';
import { callerOf } from '../files/access.ts';
import { viewOf } from '../files/wire.ts';

export function versionsHandlers(ctx: AppContext): Handlers {
  const { db } = ctx;

  return {
    async getHistoryVersion(req) {
      callerOf(req.user);
      const row = await getLive(db, req.query.instanceId);
      if (row.isFolder || row.sha256 === null) throw new AppError('CONFLICT', 'a folder has no versions');
      const history = await listVersions(db, row.id);
      return ok({
        instanceId: row.id,
        list: [
          {
            version: row.version, fSize: row.size, fMd5: row.sha256, createTime: row.updatedAt, userId: row.createdBy, userName: row.createdByName,
            current: true,
          },
          ...history.map((v) => ({
            version: v.version, fSize: v.size, fMd5: v.sha256, createTime: v.createdAt, userId: v.createdBy, userName: v.createdByName, current: false,
          })),
        ],
      });
    },

    async rollbackFile(req) {
      callerOf(req.user);
      const { instanceId, version } = req.body;
      return ok(await viewOf(db, await rollback(db, instanceId, version)));
    },
  };
}
