// Sign-in CAPTCHA challenges (auth/captcha.ts), shared by every node: only an HMAC of the answer is stored.
import type { Db } from './sql/tx.ts';

export async function insertCaptcha(db: Db, c: { id: string; answerHash: string; ip: string; expiresAt: number }): Promise<void> {
  await db.insertInto('captchas').values({ id: c.id, answer_hash: c.answerHash, ip: c.ip, expires_at: c.expiresAt }).execute();
}

/** Live challenges of an address, and when the first of them expires. */
export async function liveCaptchas(db: Db, ip: string, now: number): Promise<{ n: number; first: number | null }> {
  const r = await db
    .selectFrom('captchas')
    .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.min<number | null>('expires_at').as('first')])
    .where('ip', '=', ip)
    .where('expires_at', '>', now)
    .executeTakeFirstOrThrow();
  return { n: Number(r.n), first: r.first === null ? null : Number(r.first) };
}

/** Removes the challenge and returns what it held: one statement, so two requests racing with one answer cannot both use it. */
export async function takeCaptcha(db: Db, id: string): Promise<{ answerHash: string; expiresAt: number } | undefined> {
  return db.deleteFrom('captchas').where('id', '=', id).returning(['answer_hash as answerHash', 'expires_at as expiresAt']).executeTakeFirst();
}

export async function pruneCaptchas(db: Db, now: number): Promise<number> {
  const r = await db.deleteFrom('captchas').where('expires_at', '<=', now).executeTakeFirst();
  return Number(r.numDeletedRows);
}
