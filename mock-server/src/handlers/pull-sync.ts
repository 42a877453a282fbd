// Pull sync and its state (issue #20 part 2): the one-disk and group sync calls start a pull (pullsync/runner.ts),
// getOneSyncState and getPullSyncStatus report the latest one.
import type { AppContext, Handlers } from '../context.ts';
import type { components } from '@hcs/openapi/schema';
import { ok } from '../http/envelope.ts';
import { AppError } from '../http/errors.ts';
import { callerOf } from '../files/access.ts';
import { latestPull, type PullRow } from '../db/pullsync-repo.ts';
import { getUserByName, userNameKey } from '../db/users-repo.ts';
import { pullSyncOf } from '../pullsync/runner.ts';

type PullView = components['schemas']['PullSync'];

/** The spec's sync states: 1 not synchronised (failed), 2 synchronised, 3 in progress (0, never pulled, has no row). */
const STATE = { failed: 1, done: 2, running: 3 } as const;

function pullView(r: PullRow): PullView {
  return {
    pullId: r.id, state: STATE[r.state], syncType: r.sync_type, serverUrl: r.server_url, remoteUser: r.remote_user, groupName: r.group_name,
    files: Number(r.files), skipped: Number(r.skipped), failed: Number(r.failed_files), bytes: Number(r.bytes), error: r.error,
    createdAt: Number(r.created_at), finishedAt: r.finished_at === null ? null : Number(r.finished_at),
  };
}

export function pullSyncHandlers(ctx: AppContext): Handlers {
  const { db } = ctx;
  const pulls = pullSyncOf(ctx);
  return {
    async oneDiskSync(req) {
      const user = callerOf(req.user);
      const b = req.body;
      const row = await pulls.start(user, { userName: b.userName, password: b.password, serverUrl: b.serverUrl, syncType: b.syncType ?? 'personal', groupName: b.groupName });
      return ok(pullView(row));
    },

    async groupSync(req) {
      const user = callerOf(req.user);
      const b = req.body;
      const row = await pulls.start(user, { userName: b.userName, password: b.password, serverUrl: b.serverUrl, syncType: 'group', groupName: b.groupName });
      return ok(pullView(row));
    },

    async getOneSyncState(req) {
      const user = callerOf(req.user);
      let userId = user.userId;
      if (userNameKey(req.query.userName) !== userNameKey(user.userName)) {
        if (!user.isAdmin) throw new AppError('FORBIDDEN', 'only administrators see the sync state of another user');
        const other = await getUserByName(db, req.query.userName);
        if (!other) throw new AppError('NOT_FOUND', 'no such user');
        userId = other.id;
      }
      const row = await latestPull(db, userId);
      return ok(row ? STATE[row.state] : 0);
    },

    async getPullSyncStatus(req) {
      const user = callerOf(req.user);
      const row = await latestPull(db, user.userId);
      return ok(row ? pullView(row) : null);
    },
  };
}
