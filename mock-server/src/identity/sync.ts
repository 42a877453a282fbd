// Directory sync as a job on the database queue: on demand (syncLdapNow) and on the saved schedule. OUs become
// nested departments, users are created or updated, and accounts whose entry left the directory (or the filter)
// are disabled and signed out, never deleted: their files stay. An account sync disabled is enabled again when its
// entry comes back (one an administrator froze is not: only sync's own disabling is recorded, in directory_disabled).
// Directory groups then become drive group memberships as the group mapping says (group-mapping.ts).
import type { AppContext } from '../context.ts';
import { enqueue } from '../db/sql/jobs.ts';
import { atomically } from '../db/sql/tx.ts';
import type { JobHandler } from '../db/sql/worker.ts';
import {
  clearDirectoryDisabled, createReport, directoryDisabledIds, getLdapSettings, ldapAccounts, markDirectoryDisabled, setReport, type LdapSettings,
  type SyncReportRow,
} from '../db/identity-repo.ts';
import { setUserEnabled } from '../db/users-repo.ts';
import { revokeUserSessions } from '../db/sessions-repo.ts';
import { AppError } from '../http/errors.ts';
import { ensureDeptPath, provision } from './accounts.ts';
import { Directory, dnKey, groupByDn, type DirectoryUser } from './ldap.ts';
import { desiredMembers, emptyTally, ensureMirrorGroups, reconcileMembers, type DirectoryGroupRef, type MappingTally } from './group-mapping.ts';

export const LDAP_SYNC_JOB = 'identity.ldapSync';
/** The source of what LDAP sync does (directory_memberships, directory_groups, directory_disabled). */
export const LDAP_SOURCE = 'ldap';
/** How often each node checks whether a scheduled sync is due. */
const SCHEDULE_CHECK_MS = 60_000;

export interface DirectorySync {
  handler: JobHandler;
  /** Queues a sync with its report (one waiting sync at a time: a second request shares it). */
  request(trigger: 'manual' | 'schedule'): Promise<SyncReportRow>;
  /** Starts checking the saved schedule (when the node listens). */
  start(): void;
  stop(): void;
}

const byCtx = new WeakMap<AppContext, DirectorySync>();

/** The server instance's one DirectorySync (the handlers queue syncs, the node's worker runs them). */
export function directorySyncOf(ctx: AppContext): DirectorySync {
  let s = byCtx.get(ctx);
  if (!s) {
    s = createDirectorySync(ctx);
    byCtx.set(ctx, s);
  }
  return s;
}

export async function runSync(ctx: AppContext, reportId: number): Promise<void> {
  const { db } = ctx;
  const settings = await getLdapSettings(db);
  if (!settings || !settings.enabled) {
    await setReport(db, reportId, { status: 'failed', errors: ['LDAP is not configured or not enabled'], finishedAt: Date.now() });
    return;
  }
  await setReport(db, reportId, { status: 'running' });
  const dir = new Directory(settings, ctx.secret);
  let users;
  try {
    users = await dir.allUsers();
  } catch (err) {
    await setReport(db, reportId, { status: 'failed', errors: [err instanceof Error ? err.message : String(err)], finishedAt: Date.now() });
    return;
  }
  let added = 0;
  let updated = 0;
  let disabled = 0;
  let reenabled = 0;
  const errors: string[] = [];
  const seen = new Set<string>();
  const byDisabling = await directoryDisabledIds(db, LDAP_SOURCE);
  const members: { userId: string; user: DirectoryUser }[] = [];
  // The entries in the directory now: an account whose entry is not among them may be taken by a returning user.
  const present = new Set(users.map((u) => u.externalId));
  for (const u of users) {
    seen.add(u.externalId);
    try {
      const deptId = await ensureDeptPath(db, u.department, u.departmentKeys);
      const r = await provision(
        db,
        { source: 'ldap', externalId: u.externalId, userName: u.userName, realName: u.realName, email: u.email, deptId, isAdmin: dir.isAdmin(u) },
        { updateAdmin: settings.adminGroup !== '', returning: async (_user, ext) => ext !== null && !present.has(ext) },
      );
      if (r.outcome === 'added') added++;
      else if (r.outcome === 'updated') updated++;
      if (byDisabling.has(r.user.id)) {
        // Back in the directory: enabled again only if it is still disabled (an administrator may have enabled it).
        if (!r.user.isEnabled) {
          await setUserEnabled(db, r.user.id, true);
          reenabled++;
        }
        await clearDirectoryDisabled(db, r.user.id);
      }
      members.push({ userId: r.user.id, user: u });
    } catch (err) {
      errors.push(`${u.dn}: ${err instanceof AppError ? `${err.code} ${err.message}` : err instanceof Error ? err.message : String(err)}`);
    }
  }
  for (const [externalId, acc] of await ldapAccounts(db)) {
    if (seen.has(externalId) || !acc.enabled) continue;
    await atomically(db, async (trx) => {
      await setUserEnabled(trx, acc.userId, false);
      await markDirectoryDisabled(trx, acc.userId, LDAP_SOURCE);
      await revokeUserSessions(trx, acc.userId, null);
    });
    disabled++;
  }
  const groups = await syncGroups(dir, settings, members);
  errors.push(...groups.errors);
  await setReport(db, reportId, {
    status: 'done', added, updated, disabled, reenabled, groupsAdded: groups.groupsAdded, membersAdded: groups.membersAdded,
    membersRemoved: groups.membersRemoved, errors, finishedAt: Date.now(),
  });

  async function syncGroups(d: Directory, s: LdapSettings, found: readonly { userId: string; user: DirectoryUser }[]): Promise<MappingTally> {
    const tally = emptyTally();
    let searched: Map<string, DirectoryGroupRef>;
    try {
      searched = s.groupMapping.mirror ? await d.allGroups() : new Map();
    } catch (err) {
      // Without the directory's groups nothing can be told to have left them: memberships stay as they are.
      tally.errors.push(`groups: ${err instanceof Error ? err.message : String(err)}`);
      return tally;
    }
    // Without a group base every group a user is in is mirrored, known by its DN.
    const mirrorAll = s.groupBaseDn.trim() === '';
    const refOf = (dn: string): DirectoryGroupRef => searched.get(dnKey(dn)) ?? groupByDn(dn);
    const perUser = found.map((f) => ({ userId: f.userId, groups: f.user.memberOfDns.map(refOf) }));
    const toMirror = new Map<string, DirectoryGroupRef>();
    if (s.groupMapping.mirror) {
      for (const g of searched.values()) toMirror.set(g.externalId, g);
      if (mirrorAll) for (const u of perUser) for (const g of u.groups) toMirror.set(g.externalId, g);
    }
    const mirrored = await ensureMirrorGroups(db, LDAP_SOURCE, [...toMirror.values()], tally);
    const want = desiredMembers(s.groupMapping, mirrored, perUser, dnKey);
    await reconcileMembers(db, LDAP_SOURCE, want, s.groupMapping, tally);
    return tally;
  }
}

function createDirectorySync(ctx: AppContext): DirectorySync {
  const { db } = ctx;
  let lastScheduled = 0;

  const request = async (trigger: 'manual' | 'schedule'): Promise<SyncReportRow> => {
    const report = await createReport(db, trigger);
    await enqueue(db, { kind: LDAP_SYNC_JOB, payload: { reportId: report.id }, maxAttempts: 1 });
    return report;
  };

  let timer: NodeJS.Timeout | undefined;
  const tick = () => {
    void (async () => {
      const s = await getLdapSettings(db);
      if (!s?.enabled || s.syncMinutes <= 0) return;
      const now = Date.now();
      if (now - lastScheduled < s.syncMinutes * 60_000) return;
      lastScheduled = now;
      // Every node ticks; the dedupe key lets one scheduled sync wait at a time.
      await enqueue(db, { kind: LDAP_SYNC_JOB, payload: { trigger: 'schedule' }, dedupeKey: `${LDAP_SYNC_JOB}:schedule`, maxAttempts: 1 });
    })().catch((err: unknown) => ctx.log.warn({ err }, 'directory sync: could not schedule'));
  };

  return {
    request,
    async handler(job) {
      const payload = (job.payload ?? {}) as { reportId?: number };
      const reportId = typeof payload.reportId === 'number' ? payload.reportId : (await createReport(db, 'schedule')).id;
      await runSync(ctx, reportId);
    },
    start() {
      timer ??= setInterval(tick, SCHEDULE_CHECK_MS);
      timer.unref();
    },
    stop: () => clearInterval(timer),
  };
}
