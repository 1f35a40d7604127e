/**
 * The "SQL lives only in queries modules" rule (STYLE §2.4, issue 18), shared by the two domains'
 * layout tests.
 */

/**
 * What counts as SQL in a module: Drizzle's query builders or `sql` (any import from
 * drizzle-orm), the platform's bulk INSERT, or a statement run on a database or transaction.
 * Opening a transaction (`db.transaction`) is not SQL: services own the transaction boundary.
 */
export const SQL_PATTERN = /from '(drizzle-orm[^']*|[./]*platform\/bulk-insert\.js)'|\b(db|tx)\.(select|selectDistinct|insert|update|delete|execute|with|\$with)\(/;

/** A queries module: `queries.ts`, or `<concept>-queries.ts` beside the module it serves. */
export const isQueriesModule = (name: string): boolean => /(^|\/|-)queries\.ts$/.test(name);

/**
 * The modules (by name relative to the domain root) that hold SQL but are neither queries
 * modules nor in `allowed`.
 */
export function sqlOutsideQueries(sources: ReadonlyMap<string, string>, allowed: Readonly<Record<string, string>>): string[] {
  return [...sources].filter(([name, text]) => !isQueriesModule(name) && !(name in allowed) && SQL_PATTERN.test(text)).map(([name]) => name);
}
