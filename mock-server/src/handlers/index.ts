// Every handler module, merged into one operationId -> handler table. An operation of the contract that no
// module handles answers 501 (see contract/routes.ts).
import type { AppContext, Handlers } from '../context.ts';
import { staticHandlers } from './static.ts';
import { sessionHandlers } from './session.ts';
import { librariesHandlers } from './libraries.ts';
import { filesHandlers } from './files.ts';
import { uploadHandlers } from './upload.ts';
import { bulkUploadHandlers } from './bulk-upload.ts';
import { downloadHandlers } from './download.ts';
import { agentHandlers } from './agent.ts';

export function allHandlers(ctx: AppContext): Handlers {
  return {
    ...staticHandlers(ctx),
    ...sessionHandlers(ctx),
    ...librariesHandlers(ctx),
    ...filesHandlers(ctx),
    ...uploadHandlers(ctx),
    ...bulkUploadHandlers(ctx),
    ...downloadHandlers(ctx),
    ...agentHandlers(ctx),
  };
}
