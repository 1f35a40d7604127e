/** The app-server domain's house rule that SQL lives only in queries modules (STYLE §2.4, issue 18). */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { expect, it } from 'vitest';
import { SQL_PATTERN, sqlOutsideQueries } from '../helpers/layout.js';

const root = resolve(import.meta.dirname, '../../src/appserver');

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    return statSync(path).isDirectory() ? tsFiles(path) : path.endsWith('.ts') ? [path] : [];
  });
}

const sources = new Map(tsFiles(root).map((file) => [relative(root, file), readFileSync(file, 'utf8')]));

/** Modules with SQL outside a queries module, each with the reason it may. */
const SQL_ALLOWED: Record<string, string> = {
  'schema.ts': 'the table declarations: the due index is partial (a SQL fragment)',
  'scheduler/claim.ts': 'the one module that claims due messages (STYLE §2.1, §2.4): a query module named after its concept',
};

it('keeps SQL in queries modules only', () => {
  expect(sqlOutsideQueries(sources, SQL_ALLOWED)).toEqual([]);
  expect(Object.keys(SQL_ALLOWED).filter((file) => !SQL_PATTERN.test(sources.get(file) ?? ''))).toEqual([]);
});
