/**
 * A database's schema held against the one the writer creates (schema.ts auditSchema): every
 * difference a named problem. Three consumers read the same list: `verify` reports all of them (and
 * reads no row when one of our tables is not as Witness defines it), the writer refuses a database
 * with any, and the readers refuse those that would make a read run code or read something else
 * than the evidence (`unsafe`: one of our tables altered — a generated column, a column added,
 * removed or retyped, other constraints — or replaced by a view or a virtual table, and a trigger
 * Witness does not create). An index or table added, or an index or guard dropped, does not stop a
 * read.
 */
import type Database from 'better-sqlite3';
import {
  type SchemaColumn,
  type SchemaObject,
  type SchemaSnapshot,
  auditSchema,
  isPlainTable,
  schemaOf,
} from './schema.js';

export interface SchemaProblem {
  /** The object it is about (a table, an index, a trigger, a view). */
  readonly key: string;
  readonly reason: string;
  /**
   * The readers refuse the file: reading through it could run code or read something else than the evidence, or it is a
   * trigger Witness does not create.
   */
  readonly unsafe: boolean;
  /**
   * One of our tables is not as Witness defines it (replaced, a column added, removed, retyped or
   * generated, constraints changed): reading its rows, or SQLite's quick_check of them, could run
   * the forger's code. `verify` reports the schema and reads no rows.
   */
  readonly blocksWalk: boolean;
}

const GENERATED: Readonly<Record<number, string>> = { 2: 'virtual', 3: 'stored' };

const problem = (key: string, reason: string, o: { unsafe?: boolean; blocksWalk?: boolean } = {}): SchemaProblem => ({
  key,
  reason,
  unsafe: o.unsafe === true || o.blocksWalk === true,
  blocksWalk: o.blocksWalk === true,
});

/** How one of our plain tables' columns differ from ours, in words. */
function columnDifferences(table: string, want: readonly SchemaColumn[], have: readonly SchemaColumn[]): string[] {
  const out: string[] = [];
  const had = new Map(have.map((c) => [c.name.toLowerCase(), c]));
  for (const w of want) {
    const h = had.get(w.name.toLowerCase());
    had.delete(w.name.toLowerCase());
    if (h === undefined) out.push(`the column ${w.name} of the table ${table} is missing (removed)`);
    else if (GENERATED[h.hidden] !== undefined)
      out.push(
        `the column ${w.name} of the table ${table} is a generated column (${GENERATED[h.hidden]}): reading it would compute it rather than read what was written`,
      );
    else if (h.type.toUpperCase() !== w.type.toUpperCase())
      out.push(
        `the column ${w.name} of the table ${table} is declared ${h.type || 'with no type'}, not ${w.type} (retyped)`,
      );
    else if (h.notnull !== w.notnull || h.pk !== w.pk || h.dflt_value !== w.dflt_value)
      out.push(
        `the column ${w.name} of the table ${table} has other constraints than Witness gives it (NOT NULL, key or default changed)`,
      );
  }
  for (const h of had.values()) {
    out.push(
      GENERATED[h.hidden] !== undefined
        ? `a generated column ${h.name} (${GENERATED[h.hidden]}) was added to the table ${table}: Witness's tables have none, and reading it would compute it`
        : `a column ${h.name} that Witness does not create was added to the table ${table}`,
    );
  }
  return out;
}

/** One of our objects as the file has it. */
function ourObjectProblems(
  want: SchemaObject,
  have: SchemaObject | undefined,
  ours: SchemaSnapshot,
  theirs: SchemaSnapshot,
): SchemaProblem[] {
  const n = want.name;
  if (want.type === 'table') {
    if (have === undefined) return [problem(n, `the table ${n} is missing`, { blocksWalk: true })];
    if (have.type === 'view')
      return [
        problem(
          n,
          `a view in place of the table ${n}: reading it would run the view's query, not read what was written`,
          { blocksWalk: true },
        ),
      ];
    if (!isPlainTable(have))
      return [
        problem(
          n,
          `a ${have.type === 'table' ? 'virtual table' : have.type} in place of the table ${n}: reading it would run its code, not read what was written`,
          { blocksWalk: true },
        ),
      ];
    const cols = columnDifferences(
      n,
      ours.columns.get(n.toLowerCase()) ?? [],
      theirs.columns.get(n.toLowerCase()) ?? [],
    );
    if (cols.length === 0 && have.sql !== want.sql)
      cols.push(`the definition of the table ${n} differs from Witness's (its constraints were changed)`);
    return cols.map((reason) => problem(n, reason, { blocksWalk: true }));
  }
  if (n.startsWith('sqlite_autoindex_')) return []; // Implied by the table's definition, compared above.
  const what = want.type === 'trigger' ? `the trigger ${n}` : `the ${want.type} ${n}`;
  if (have === undefined) {
    return [
      problem(
        n,
        want.type === 'trigger'
          ? `${what} is missing (dropped): the evidence tables could be rewritten in place`
          : `${what} is missing (dropped)`,
      ),
    ];
  }
  if (have.type !== want.type || have.sql !== want.sql) {
    return [
      problem(
        n,
        want.type === 'trigger' ? `${what} was altered: it no longer refuses what it must` : `${what} was altered`,
      ),
    ];
  }
  return [];
}

/** An object Witness does not create. */
function foreignProblem(o: SchemaObject): SchemaProblem {
  switch (o.type) {
    case 'trigger':
      return problem(o.name, `a trigger ${o.name} (on ${o.table}) that Witness does not create was added`, {
        unsafe: true,
      });
    case 'view':
      return problem(o.name, `a view ${o.name} that Witness does not create was added`);
    case 'index':
      return problem(o.name, `an index ${o.name} on ${o.table} that Witness does not create was added`);
    case 'table':
      return problem(
        o.name,
        `a ${isPlainTable(o) ? 'table' : 'virtual table'} ${o.name} that Witness does not create was added`,
      );
    default:
      return problem(o.name, `a ${o.type} ${o.name} that Witness does not create was added`);
  }
}

/**
 * Every difference between `db`'s schema and the one the writer creates, ours in creation order
 * first, then what was added. Reads sqlite_schema and the tables' column lists only.
 */
export function schemaProblems(db: Database.Database): SchemaProblem[] {
  const ours = auditSchema();
  const theirs = schemaOf(db);
  const out: SchemaProblem[] = [];
  for (const [key, want] of ours.objects) out.push(...ourObjectProblems(want, theirs.objects.get(key), ours, theirs));
  for (const [key, o] of theirs.objects) {
    // A foreign table's own key index comes with it: the table is the problem.
    if (!ours.objects.has(key) && !(o.type === 'index' && key.startsWith('sqlite_autoindex_')))
      out.push(foreignProblem(o));
  }
  return out;
}

/** The problems in words, for a message: the first few, and how many more. */
export function problemsText(ps: readonly SchemaProblem[], max = 3): string {
  const shown = ps
    .slice(0, max)
    .map((p) => p.reason)
    .join('; ');
  return ps.length > max ? `${shown}; and ${ps.length - max} more` : shown;
}
