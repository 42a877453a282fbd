// Sign-in CAPTCHA challenges. Solving one lets a sign-in past the failure threshold skip its delay (see
// rate-limit.ts). The image is an SVG drawn by svg-captcha (glyphs as paths, no text or script) and handed out
// only as a data: URI inside JSON, never as a file served from the drive's origin. The answer stays on the
// server as an HMAC in the captchas table: single-use, short-lived, bound to its challenge id.
import { createHmac, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import { createRequire } from 'node:module';
import type { Db } from '../db/sql/tx.ts';
import { insertCaptcha, liveCaptchas, pruneCaptchas, takeCaptcha } from '../db/captchas-repo.ts';
import { AppError } from '../http/errors.ts';

export const CAPTCHA_TTL_MS = 2 * 60_000;
/** Live challenges one address may hold; more are refused until the oldest expire. */
export const CAPTCHA_LIVE_PER_IP = 20;
const LENGTH = 4;
// Lower case and digits without look-alikes (0/o, 1/l/i): answers are compared case-insensitively.
const ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';
const ID_RE = /^[A-Za-z0-9_-]{22}$/;

export interface Captcha {
  captchaId: string;
  /** data:image/svg+xml;base64,... */
  image: string;
  expiresAt: number;
}

export interface Captchas {
  /** A fresh challenge for `ip`; RATE_LIMITED when that address already holds too many live ones. */
  create(ip: string, now?: number): Promise<Captcha>;
  /** Uses the challenge up (whatever the answer) and tells whether it was live and answered right. */
  consume(id: string, answer: string, now?: number): Promise<boolean>;
  /** Drops expired challenges nobody answered; returns how many went. */
  prune(now?: number): Promise<number>;
}

function normalise(answer: string): string {
  return answer.trim().toLowerCase();
}

/** What the table stores for an answer: an HMAC under the server secret, bound to the challenge id. */
export function captchaAnswerHash(secret: Buffer, id: string, answer: string): string {
  return createHmac('sha256', secret).update(`${id}:${normalise(answer)}`).digest('hex');
}

type Render = (text: string, options?: { noise?: number; width?: number; height?: number; color?: boolean }) => string;
let render: Render | undefined;
/** svg-captcha reads its font at load; only a server that hands out a challenge pays for that. */
function renderer(): Render {
  // Its default export draws a given text (documented as svgCaptcha(text, options), missing from its typings).
  render ??= createRequire(import.meta.url)('svg-captcha') as Render;
  return render;
}

export function createCaptchas(db: Db, secret: Buffer): Captchas {
  return {
    async create(ip, now = Date.now()) {
      await pruneCaptchas(db, now);
      const held = await liveCaptchas(db, ip, now);
      if (held.n >= CAPTCHA_LIVE_PER_IP) {
        throw new AppError('RATE_LIMITED', 'too many verification images requested, try again later', {
          retryAfterSeconds: Math.max(1, Math.ceil(((held.first ?? now) - now) / 1000)),
        });
      }
      // The text comes from the CSPRNG, not from the library (Math.random can be predicted from its outputs).
      const text = Array.from({ length: LENGTH }, () => ALPHABET[randomInt(ALPHABET.length)]).join('');
      const svg = renderer()(text, { noise: 3, width: 150, height: 50, color: false });
      const id = randomBytes(16).toString('base64url');
      const expiresAt = now + CAPTCHA_TTL_MS;
      await insertCaptcha(db, { id, answerHash: captchaAnswerHash(secret, id, text), ip, expiresAt });
      return { captchaId: id, image: `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`, expiresAt };
    },

    async consume(id, answer, now = Date.now()) {
      if (!ID_RE.test(id)) return false;
      const row = await takeCaptcha(db, id);
      if (!row || row.expiresAt <= now) return false;
      const expected = Buffer.from(row.answerHash, 'hex');
      const actual = Buffer.from(captchaAnswerHash(secret, id, answer), 'hex');
      return expected.length === actual.length && timingSafeEqual(expected, actual);
    },

    prune: (now = Date.now()) => pruneCaptchas(db, now),
  };
}
