/**
 * The management domain's house rules that a reader relies on (ARCHITECTURE.md rule 10, issue 18):
 * only settings.ts reads `Config`; route modules construct no service (plugin.ts builds them);
 * SQL lives only in `queries` modules and DTO mappers are pure; no import cycles between its modules.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isQueriesModule, SQL_PATTERN, sqlOutsideQueries } from '../helpers/layout.js';

const root = resolve(import.meta.dirname, '../../src/management');

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    return statSync(path).isDirectory() ? tsFiles(path) : path.endsWith('.ts') ? [path] : [];
  });
}

const files = tsFiles(root);
const source = new Map(files.map((file) => [file, readFileSync(file, 'utf8')]));
const name = (file: string) => relative(root, file);

/** Modules with SQL outside a queries module, each with the reason it may. */
const SQL_ALLOWED: Record<string, string> = {
  'schema.ts': 'the table declarations: column defaults, checks and partial indexes are SQL fragments',
};

/** Relative imports (type-only ones included) of a file, as absolute paths of .ts files. */
function importsOf(file: string): string[] {
  const found = [...source.get(file)!.matchAll(/(?:import|export)\s[^'"]*?from\s+['"](\.[^'"]+)['"]/g)];
  return found.map((m) => resolve(dirname(file), m[1]!.replace(/\.js$/, '.ts')));
}

describe('management layout', () => {
  it('reads Config only in settings.ts', () => {
    const readers = files.filter((file) => /\bConfig\b.*from '[./]*\/config\.js'|app\.config\b/.test(source.get(file)!)).map(name);
    expect(readers).toEqual(['settings.ts']);
  });

  it('builds no service in a route module', () => {
    const routeFiles = files.filter((file) => file.endsWith('routes.ts'));
    expect(routeFiles.length).toBeGreaterThan(15);
    const building = routeFiles.filter((file) => /\bcreate[A-Z]\w*\(/.test(source.get(file)!)).map(name);
    expect(building).toEqual([]);
  });

  it('keeps SQL in queries modules only', () => {
    const byName = new Map(files.map((file) => [name(file), source.get(file)!]));
    expect(sqlOutsideQueries(byName, SQL_ALLOWED)).toEqual([]);
    // The pattern sees SQL where it is (every queries module), and each exception still needs its place.
    const queries = [...byName].filter(([file]) => isQueriesModule(file));
    expect(queries.length).toBeGreaterThan(20);
    expect(queries.filter(([, text]) => !SQL_PATTERN.test(text)).map(([file]) => file)).toEqual([]);
    expect(Object.keys(SQL_ALLOWED).filter((file) => !SQL_PATTERN.test(byName.get(file) ?? ''))).toEqual([]);
  });

  it('keeps the DTO mappers pure: no database access, nothing awaited', () => {
    const mappers = files.filter((file) => file.endsWith('dto.ts'));
    expect(mappers.length).toBeGreaterThan(3);
    const impure = mappers.filter((file) => /^import (?!type\b)[^;]*from '[^']*(queries|database)\.js'|\basync\b|\bawait\b/m.test(source.get(file)!));
    expect(impure.map(name)).toEqual([]);
  });

  it('has no import cycles between its modules', () => {
    const graph = new Map(files.map((file) => [file, importsOf(file).filter((target) => source.has(target))]));
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const stack: string[] = [];
    const visit = (file: string) => {
      state.set(file, 'open');
      stack.push(file);
      for (const next of graph.get(file)!) {
        if (state.get(next) === 'open') cycles.push(stack.slice(stack.indexOf(next)).concat(next).map(name).join(' → '));
        else if (!state.has(next)) visit(next);
      }
      stack.pop();
      state.set(file, 'done');
    };
    for (const file of files) if (!state.has(file)) visit(file);
    expect(cycles).toEqual([]);
  });

  it('has no import cycles between its folders', () => {
    // A folder's modules may use another folder's only if that one uses nothing of theirs, however
    // indirectly: oauth/ uses security/, so security/ takes nothing from oauth/. The files at the
    // root (plugin.ts, settings.ts, schema.ts, errors.ts) are the composition root and the shared
    // declarations, outside this rule.
    const folderOf = (file: string) => (name(file).includes('/') ? name(file).split('/')[0]! : undefined);
    const folders = new Map<string, Map<string, string>>();
    for (const file of files) {
      const from = folderOf(file);
      if (!from) continue;
      const edges = folders.get(from) ?? new Map<string, string>();
      folders.set(from, edges);
      for (const target of importsOf(file)) {
        const to = source.has(target) ? folderOf(target) : undefined;
        if (to && to !== from && !edges.has(to)) edges.set(to, `${name(file)} → ${name(target)}`);
      }
    }
    expect([...folders.keys()]).toEqual(expect.arrayContaining(['oauth', 'security', 'session', 'account', 'pairing', 'audit', 'mail', 'authz', 'api']));
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const stack: string[] = [];
    const visit = (folder: string) => {
      state.set(folder, 'open');
      stack.push(folder);
      for (const next of folders.get(folder)?.keys() ?? []) {
        if (state.get(next) === 'open') {
          const loop = stack.slice(stack.indexOf(next)).concat(next);
          cycles.push(loop.slice(1).map((to, i) => folders.get(loop[i]!)!.get(to)!).join(', '));
        } else if (!state.has(next)) visit(next);
      }
      stack.pop();
      state.set(folder, 'done');
    };
    for (const folder of folders.keys()) if (!state.has(folder)) visit(folder);
    expect(cycles).toEqual([]);
  });
});
