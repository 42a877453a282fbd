// Every handler module, merged into one operationId -> handler table. An operation of the contract that no
// module handles answers 501 (see contract/routes.ts).
import type { AppContext, Handlers } from '../context.ts';
import { staticHandlers } from './static.ts';
import { sessionHandlers } from './session.ts';
import { librariesHandlers } from './libraries.ts';
import { filesHandlers } from './files.ts';
import { recycleHandlers } from './recycle.ts';
import { versionsHandlers } from './versions.ts';
import { uploadHandlers } from './upload.ts';
import { bulkUploadHandlers } from './bulk-upload.ts';
import { downloadHandlers } from './download.ts';
import { thumbnailHandlers } from './thumbnail.ts';
import { agentHandlers } from './agent.ts';
import { agentPackageHandlers } from './agent-package.ts';
import { orgUsersHandlers } from './org-users.ts';
import { orgRolesHandlers } from './org-roles.ts';
import { collectHandlers } from './collect.ts';
import { labelsHandlers } from './labels.ts';
import { searchHandlers } from './search.ts';
import { templatesHandlers } from './templates.ts';
import { adminFilesHandlers } from './admin-files.ts';
import { groupsHandlers } from './groups.ts';
import { adminConsoleHandlers } from './admin-console.ts';
import { identityHandlers } from './identity.ts';
import { sharesInternalHandlers } from './shares-internal.ts';
import { shareLinksHandlers } from './share-links.ts';
import { businessLibsHandlers } from './business-libs.ts';
import { dlpHandlers } from './dlp.ts';
import { storageHandlers } from './storage.ts';
import { syncHandlers } from './sync.ts';
import { pullSyncHandlers } from './pull-sync.ts';

/**
 * Merges the modules' tables (`modules` maps a module's name to its handlers). Two modules handling one operation is
 * a start-up error: a spread would let the later one win silently, and which one runs would depend on import order.
 */
export function mergeHandlers(modules: Readonly<Record<string, Handlers>>): Handlers {
  const merged: Record<string, unknown> = {};
  const owner = new Map<string, string>();
  for (const [module, handlers] of Object.entries(modules)) {
    for (const [operationId, handler] of Object.entries(handlers)) {
      const first = owner.get(operationId);
      if (first !== undefined) throw new Error(`${operationId} is handled by both the ${first} and the ${module} handler modules`);
      owner.set(operationId, module);
      merged[operationId] = handler;
    }
  }
  return merged as Handlers;
}

export function allHandlers(ctx: AppContext): Handlers {
  return mergeHandlers({
    static: staticHandlers(ctx),
    session: sessionHandlers(ctx),
    libraries: librariesHandlers(ctx),
    files: filesHandlers(ctx),
    recycle: recycleHandlers(ctx),
    versions: versionsHandlers(ctx),
    upload: uploadHandlers(ctx),
    'bulk-upload': bulkUploadHandlers(ctx),
    download: downloadHandlers(ctx),
    thumbnail: thumbnailHandlers(ctx),
    agent: agentHandlers(ctx),
    'agent-package': agentPackageHandlers(ctx),
    'org-users': orgUsersHandlers(ctx),
    'org-roles': orgRolesHandlers(ctx),
    collect: collectHandlers(ctx),
    labels: labelsHandlers(ctx),
    search: searchHandlers(ctx),
    templates: templatesHandlers(ctx),
    'admin-files': adminFilesHandlers(ctx),
    groups: groupsHandlers(ctx),
    'admin-console': adminConsoleHandlers(ctx),
    identity: identityHandlers(ctx),
    'shares-internal': sharesInternalHandlers(ctx),
    'share-links': shareLinksHandlers(ctx),
    'business-libs': businessLibsHandlers(ctx),
    dlp: dlpHandlers(ctx),
    storage: storageHandlers(ctx),
    'pull-sync': pullSyncHandlers(ctx),
    sync: syncHandlers(ctx),
  });
}
