// 019: the business-library screens (issue #18). instances_lib_live serves what a library holds (getBusinessLibStats:
// live files and folders, and their bytes, per custom library) without reading every instance of the drive: no
// other index leads with lib_code.
import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import type { SqlDialect } from '../tx.ts';
import { isNull } from './core-steps.ts';

export function bizlibScreensMigration(_dialect: SqlDialect): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.createIndex('instances_lib_live').on('instances').columns(['lib_code', 'is_folder']).where(isNull('deleted_at')).execute();
    },
  };
}
