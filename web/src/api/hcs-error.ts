// One HcsError class for every /hcs failure: the typed client (transfer engine) and hcsFetch throw the same one, so
// `instanceof HcsError` recognises both. Kept as the web's import path so screens need not know the package.
export { HcsError, newTraceId } from '@hcs/openapi/client';
