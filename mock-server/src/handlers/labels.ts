// Labels and remarks (issue #16 item 3): the caller's own labels (names and colours nobody else sees), attached to
// items they can see; and a remark on items they can edit. personalise() adds the caller's labels and favourite
// mark to instance views wherever rows are listed.
import type { AppContext, Handlers } from '../context.ts';
import type { Db } from '../db/sql/tx.ts';
import { done, ok } from '../http/envelope.ts';
import { AppError } from '../http/errors.ts';
import { getLive, setRemark, type RowMarks } from '../db/instances-repo.ts';
import { createLabel, deleteLabel, listLabels, modifyLabel, personalMarks, saveItemLabels, type LabelRef } from '../db/labels-repo.ts';
import { callerOf } from '../files/access.ts';
import { viewOf } from '../files/wire.ts';

export const DEFAULT_LABEL_COLOR = '#1677ff';

/** The labels of an unlabelled row: one shared, frozen empty list instead of one per row of every page. */
const NO_LABELS = Object.freeze([]) as unknown as LabelRef[];

/** Whose marks personalise adds: a caller who has never marked an item (SessionUser.hasMarks) has none to look up. */
export interface MarksOwner {
  userId: string;
  hasMarks: boolean;
}

/**
 * The caller's labels and favourite mark on each view, in one query for the whole list. With `known` (the page
 * query's own marks, instances-repo's `marksOf`) only labelled rows are looked up, and none at all when no row is.
 * None at all either for a caller who has never marked anything (`owner.hasMarks` false): every view is unmarked.
 * The views are the caller's fresh ones and get the two fields in place: a listing page is 50 views, and copying each
 * (with the replication state before it) tripled the objects a page made for the collector.
 */
export async function personalise<T extends { instanceId: string }>(
  db: Db, owner: MarksOwner, views: T[], known?: ReadonlyMap<string, RowMarks>,
): Promise<(T & { labels: LabelRef[]; isFavourite: boolean })[]> {
  const out = views as (T & { labels: LabelRef[]; isFavourite: boolean })[];
  const { userId } = owner;
  if (!owner.hasMarks) {
    for (const v of out) {
      v.labels = NO_LABELS;
      v.isFavourite = false;
    }
    return out;
  }
  if (known) {
    const labelled = views.filter((v) => known.get(v.instanceId)?.labelled).map((v) => v.instanceId);
    const { labels } = labelled.length ? await personalMarks(db, userId, labelled) : { labels: new Map<string, LabelRef[]>() };
    for (const v of out) {
      v.labels = labels.get(v.instanceId) ?? NO_LABELS;
      v.isFavourite = known.get(v.instanceId)?.favourite ?? false;
    }
    return out;
  }
  const { labels, favourites } = await personalMarks(db, userId, views.map((v) => v.instanceId));
  for (const v of out) {
    v.labels = labels.get(v.instanceId) ?? NO_LABELS;
    v.isFavourite = favourites.has(v.instanceId);
  }
  return out;
}

function labelName(raw: string): string {
  const name = raw.trim();
  if (name === '' || /[\u0000-\u001f\u007f]/.test(name)) {
    throw new AppError('VALIDATION_FAILED', 'a label name is 1-32 printable characters', { fields: [{ field: 'name', message: 'invalid' }] });
  }
  return name;
}

export function labelsHandlers(ctx: AppContext): Handlers {
  const { db } = ctx;
  return {
    async listLabels(req) {
      const user = callerOf(req.user);
      return ok(await listLabels(db, user.userId));
    },

    async createLabel(req) {
      const user = callerOf(req.user);
      return ok(await createLabel(db, user.userId, labelName(req.body.name), req.body.color ?? DEFAULT_LABEL_COLOR));
    },

    async modifyLabel(req) {
      const user = callerOf(req.user);
      const b = req.body;
      return ok(await modifyLabel(db, user.userId, req.params.id, { name: b.name === undefined ? undefined : labelName(b.name), color: b.color }));
    },

    async deleteLabel(req) {
      const user = callerOf(req.user);
      await deleteLabel(db, user.userId, req.params.id);
      return done();
    },

    // The gate checked `view` on body.instanceId.
    async saveInstanceLabel(req) {
      const user = callerOf(req.user);
      const b = req.body;
      const row = await getLive(db, b.instanceId);
      await saveItemLabels(db, user.userId, row.id, b.labelIds, b.mode ?? 'set');
      // The session was read before this call may have made the caller's first mark.
      const [view] = await personalise(db, { userId: user.userId, hasMarks: true }, [await viewOf(db, row)]);
      return ok(view!);
    },

    // The gate checked `edit` on body.instanceId.
    async saveInstanceRemark(req) {
      const user = callerOf(req.user);
      const b = req.body;
      const row = await getLive(db, b.instanceId);
      if (row.parentId === null) throw new AppError('FORBIDDEN', 'a library root has no remark');
      await setRemark(db, row.id, b.remark);
      const [view] = await personalise(db, user, [await viewOf(db, await getLive(db, row.id))]);
      return ok(view!);
    },
  };
}
