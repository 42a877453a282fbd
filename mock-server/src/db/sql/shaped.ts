// Statements every request runs, compiled once per database kind and shape instead of on each run.
//
// Kysely builds a tree for each `sql` template and compiles it to text on every execute. For a listing that was the
// gate's folder chain and the page: measured in the server (CPU profile of the listing benchmark, SQLite, 64
// connections) building and compiling those two cost about 30 us of a request, more than SQLite took to run the chain
// statement. The text of such a statement depends only on its shape (the sort column, whether a cursor seeks, a
// page size written as a literal...), never on the values it binds, so it is compiled once per shape. A plugin's
// transformQuery sees a shape when it is compiled, not on each run (the server installs no query-rewriting plugin);
// results pass the plugins as every statement's do.
import { CompiledQuery, type QueryResult, type RawBuilder } from 'kysely';
import { dialectOf, type Db } from './tx.ts';

/** A placeholder value no caller binds: its position among the compiled parameters says which argument goes there. */
const SLOT = (i: number): string => `\u0000hcs-slot-${i}\u0000`;
const SLOT_RE = /^\u0000hcs-slot-(\d+)\u0000$/;

interface Kept {
  sql: string;
  /** For each compiled parameter, the index of the argument bound there, or the shape's own constant. */
  slots: readonly (number | { constant: unknown })[];
}

function bound(slots: Kept['slots'], args: readonly unknown[]): unknown[] {
  return slots.map((s) => (typeof s === 'number' ? args[s] : s.constant));
}

/** Shapes kept per statement at most; a statement with more (none should have) is compiled afresh past that. */
const MAX_SHAPES = 256;

/**
 * A statement whose text is `build(context, ...args)` compiled, kept per database kind and `shape`. `build` must
 * turn every argument into a bound parameter (never into SQL text), and whatever else it reads from `context` must
 * be the same for every context of that `shape`: the text, and any value it binds that is not an argument (a
 * segment's flag, a page's limit), are kept as the first run of the shape made them. That first run builds with
 * placeholder arguments and learns where each lands; a builder that writes a placeholder into the text is refused
 * there rather than run wrong.
 */
export function shapedStatement<C, A extends readonly unknown[], R>(build: (context: C, ...args: A) => RawBuilder<R>) {
  const kept = new Map<string, Kept>();
  const lookup = (db: Db, shape: string, context: C, arity: number): Kept => {
    const key = `${dialectOf(db)}\u0001${shape}`;
    const hit = kept.get(key);
    if (hit) return hit;
    const compiled = build(context, ...(Array.from({ length: arity }, (_, i) => SLOT(i)) as unknown as A)).compile(db);
    if (compiled.sql.includes('\u0000hcs-slot-')) throw new Error(`shaped statement ${shape}: an argument was written into the SQL text`);
    const slots = compiled.parameters.map((p) => {
      const m = typeof p === 'string' ? SLOT_RE.exec(p) : null;
      return m ? Number(m[1]) : { constant: p };
    });
    const entry = { sql: compiled.sql, slots };
    if (kept.size < MAX_SHAPES) kept.set(key, entry);
    return entry;
  };
  return {
    /** Runs the statement of `shape` with `args` bound. */
    async execute(db: Db, shape: string, context: C, ...args: A): Promise<QueryResult<R>> {
      const { sql, slots } = lookup(db, shape, context, args.length);
      return db.executeQuery(CompiledQuery.raw(sql, bound(slots, args))) as Promise<QueryResult<R>>;
    },
    /** The text and parameters execute sends (tests compare them with the builder's own compile). */
    compiled(db: Db, shape: string, context: C, ...args: A): { sql: string; parameters: unknown[] } {
      const { sql, slots } = lookup(db, shape, context, args.length);
      return { sql, parameters: bound(slots, args) };
    },
  };
}
