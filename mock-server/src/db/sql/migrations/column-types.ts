// Column types per database, written out where they differ. SQLite stores any integer in an INTEGER column;
// PostgreSQL needs bigint for epoch milliseconds and byte counts (past 2^31), and gets smallint for 0/1 flags.
import { sql, type ColumnDefinitionBuilder, type Expression } from 'kysely';
import type { SqlDialect } from '../tx.ts';

type DataType = 'integer' | 'bigint' | 'smallint' | 'text' | Expression<unknown>;

export interface ColumnTypes {
  /** Epoch milliseconds, and durations in milliseconds. */
  time: DataType;
  /** Byte counts and offsets (files up to 80 GB, quotas beyond). */
  bytes: DataType;
  /** Small counts and codes: versions, part numbers, levels, reference counts, sort keys. */
  int: DataType;
  /** 0/1 booleans. */
  flag: DataType;
  /**
   * Text, compared bytewise on both: SQLite's default BINARY collation, and "C" on PostgreSQL, whose database
   * default collation is the server's locale. Listing sorts and keyset cursors (name_key, id) then order the same
   * on both, and the indexes that serve them are plain byte comparisons.
   */
  text: DataType;
  /** Adds an auto-incremented integer primary key named like the column. */
  serialId: (col: ColumnDefinitionBuilder) => ColumnDefinitionBuilder;
  serialIdType: DataType;
}

export function columnTypes(dialect: SqlDialect): ColumnTypes {
  if (dialect === 'postgres') {
    return {
      time: 'bigint',
      bytes: 'bigint',
      int: 'integer',
      flag: 'smallint',
      text: sql`text collate "C"`,
      serialIdType: 'bigint',
      serialId: (col) => col.primaryKey().generatedByDefaultAsIdentity(),
    };
  }
  return {
    time: 'integer',
    bytes: 'integer',
    int: 'integer',
    flag: 'integer',
    text: 'text',
    serialIdType: 'integer',
    // AUTOINCREMENT: an id is never handed out twice, even after the newest row is deleted (op-log lines, jobs).
    serialId: (col) => col.primaryKey().autoIncrement(),
  };
}
