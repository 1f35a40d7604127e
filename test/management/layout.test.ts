/**
 * The management domain's house rules that a reader relies on (ARCHITECTURE.md rule 10, issue 18):
 * only settings.ts reads `Config`; route modules construct no service (plugin.ts builds them);
 * SQL of the resources lives in their `queries` modules; no import cycles between its modules.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

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

  it('keeps the resources\' SQL in their queries modules', () => {
    const resources = files.filter((file) => name(file).startsWith('api/') && !file.endsWith('queries.ts'));
    const withSql = resources.filter((file) => /from 'drizzle-orm|\b(db|tx)\.(select|insert|update|delete|execute)\(/.test(source.get(file)!)).map(name);
    expect(withSql).toEqual([]);
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
});
