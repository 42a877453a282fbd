// The narrow seam between the CLI's bulk jobs and the transfer engine: createTransfer builds the Transfer
// (./transfer-types.ts) on @hcs/transfer-core through ./transfer-core-adapter.ts. Jobs only see that interface.
import type { Api } from './api.ts';
import { CoreTransfer } from './transfer-core-adapter.ts';
import type { Transfer } from './transfer-types.ts';

/** `resumePath`: the engine's 0600 resume records for this job (one file per job, one process per file). */
export function createTransfer(api: Api, resumePath: string): Transfer {
  return new CoreTransfer(api, resumePath);
}
