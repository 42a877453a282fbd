export * from './capacity/capacity';
export * from './download/download';
export * from './files/files';
export * from './libraries/libraries';
export * from './session/session';
export * from './static/static';
export * from './upload/upload';
