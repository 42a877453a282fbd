// Ids the server makes (rows, links, traces): one place, so they share one rule.
import { randomBytes } from 'node:crypto';

/**
 * A random id in base64url that never starts with '-': ids are typed as CLI arguments (`drive share rm <shareId>`),
 * where a leading '-' reads as an option, so one id in 64 could not be given. Every id the server makes comes here.
 */
export function newId(bytes = 12): string {
  for (;;) {
    const id = randomBytes(bytes).toString('base64url');
    if (id[0] !== '-') return id;
  }
}
