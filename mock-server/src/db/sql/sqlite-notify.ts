// SQLite's stand-in for PostgreSQL's pg_notify: every connection the node:sqlite dialect opens has a function
// hcs_notify(channel, payload) that emits on this process-wide emitter. SQLite runs on one node, so telling this
// process is telling everyone; a trigger that calls it hears every write on the connection, whatever code made it.
// It fires when the statement runs, before commit: a listener may only drop what it holds (a rolled-back change
// then costs a re-read), never act on the new value.
import { EventEmitter } from 'node:events';
import type { DatabaseSync } from 'node:sqlite';

export const sqliteNotifications = new EventEmitter();
// Every server built in one process (tests) subscribes; the default bound of 10 would warn.
sqliteNotifications.setMaxListeners(0);

export function installSqliteNotify(db: DatabaseSync): void {
  db.function('hcs_notify', { deterministic: false }, (channel, payload) => {
    sqliteNotifications.emit(String(channel), String(payload));
    return null;
  });
}
