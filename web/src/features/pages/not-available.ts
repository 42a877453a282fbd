import { HcsError } from '../../api/hcs-error.ts';

/**
 * The server has no implementation for this feature: 501 NOT_IMPLEMENTED for contract operations, or 404 "no route"
 * for spec calls the contract does not define yet. Anything else is a real failure and is shown as one.
 */
export function isNotAvailable(err: unknown, kind: 'contract' | 'legacy'): boolean {
  if (!(err instanceof HcsError)) return false;
  if (err.code === 'NOT_IMPLEMENTED' || err.status === 501) return true;
  return kind === 'legacy' && err.status === 404 && err.code === 'NOT_FOUND';
}
