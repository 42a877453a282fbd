// Every handler module, merged into one operationId -> handler table. An operation of the contract that no
// module handles answers 501 (see contract/routes.ts).
import type { AppContext, Handlers } from '../context.ts';
import { staticHandlers } from './static.ts';

export function allHandlers(ctx: AppContext): Handlers {
  return {
    ...staticHandlers(ctx),
  };
}
