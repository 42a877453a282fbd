// Named leases in the database: "this work runs on one node at a time" (the upload janitor, later LDAP sync),
// shared by every node on the database. A lease has one holder until it expires; the holder renews it while it
// works and releases it when done. A holder that stops renewing (crashed, hung) loses it at expiry, so work
// guarded by a lease must be safe to redo, and a holder must renew well before expiry and stop when renew fails.
import type { Db } from './tx.ts';

/**
 * Takes the lease if it is free or expired, or extends it if `holder` holds it already; true when `holder` holds it
 * afterwards. One INSERT ... ON CONFLICT DO UPDATE ... WHERE: atomic on both databases (PostgreSQL locks the
 * conflicting row, so of two nodes racing for an expired lease one updates it and the other sees the winner).
 */
export async function acquireLease(db: Db, name: string, holder: string, ttlMs: number, now = Date.now()): Promise<boolean> {
  const row = await db
    .insertInto('leases')
    .values({ name, holder, expires_at: now + ttlMs, acquired_at: now })
    .onConflict((oc) =>
      oc
        .column('name')
        .doUpdateSet((eb) => ({
          holder: eb.ref('excluded.holder'),
          expires_at: eb.ref('excluded.expires_at'),
          // A holder extending its own lease keeps the time it first took it.
          acquired_at: eb.case().when('leases.holder', '=', eb.ref('excluded.holder')).then(eb.ref('leases.acquired_at')).else(eb.ref('excluded.acquired_at')).end(),
        }))
        .where((eb) => eb.or([eb('leases.expires_at', '<=', now), eb('leases.holder', '=', eb.ref('excluded.holder'))])),
    )
    .returning('holder')
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Extends a lease `holder` still holds; false when it expired or passed to someone else (stop the guarded work:
 * acquire again to go on). Unlike acquire, an expired lease is not revived, so a lapse is always noticed.
 */
export async function renewLease(db: Db, name: string, holder: string, ttlMs: number, now = Date.now()): Promise<boolean> {
  const r = await db
    .updateTable('leases')
    .set({ expires_at: now + ttlMs })
    .where('name', '=', name)
    .where('holder', '=', holder)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return r.numUpdatedRows > 0n;
}

/** Gives the lease up (only its holder can); true when it was held by `holder`. */
export async function releaseLease(db: Db, name: string, holder: string): Promise<boolean> {
  const r = await db.deleteFrom('leases').where('name', '=', name).where('holder', '=', holder).executeTakeFirst();
  return r.numDeletedRows > 0n;
}

/** Who holds the lease now, if anyone (status screens). */
export async function leaseHolder(db: Db, name: string, now = Date.now()): Promise<{ holder: string; expiresAt: number; acquiredAt: number } | undefined> {
  const r = await db
    .selectFrom('leases')
    .select(['holder', 'expires_at', 'acquired_at'])
    .where('name', '=', name)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return r ? { holder: r.holder, expiresAt: r.expires_at, acquiredAt: r.acquired_at } : undefined;
}
