import { HcsError } from '../../api/hcs-error.ts';

/**
 * The server has no implementation for this contract operation yet (501 NOT_IMPLEMENTED). Anything else is a real
 * failure and is shown as one.
 */
export function isNotAvailable(err: unknown): boolean {
  return err instanceof HcsError && (err.code === 'NOT_IMPLEMENTED' || err.status === 501);
}
