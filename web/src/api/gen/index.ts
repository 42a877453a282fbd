/* eslint-disable */
// GENERATED FILE - DO NOT EDIT. Source: openapi/src (run `npm run gen`).
export * from './admin-console/admin-console.ts';
export * from './agent/agent.ts';
export * from './business-libs/business-libs.ts';
export * from './capacity/capacity.ts';
export * from './dlp/dlp.ts';
export * from './download/download.ts';
export * from './files/files.ts';
export * from './groups/groups.ts';
export * from './identity/identity.ts';
export * from './libraries/libraries.ts';
export * from './org/org.ts';
export * from './roles/roles.ts';
export * from './session/session.ts';
export * from './shares/shares.ts';
export * from './static/static.ts';
export * from './storage/storage.ts';
export * from './sync/sync.ts';
export * from './upload/upload.ts';
