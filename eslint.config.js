// Lint for `npm test`: the house's never rules (ARCHITECTURE.md rule 11, STYLE.md §2.2, §2.5,
// §2.10) plus a few checks that catch real mistakes. Syntax-only (no type information), so it
// stays fast; `tsc` already checks the types.
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

// The domains import each other only through relative paths (tsconfig has no path aliases), so
// a path segment names the folder an import reaches, from any depth: survives moving files
// inside a domain.
const importsFolder = (folder) => `(^|/)${folder}(/|\\.js$|$)`;

/**
 * One never rule: files under `from` must not import any of `folders`. Covers static imports
 * and re-exports (no-restricted-imports) and `import()` in code or types (no-restricted-syntax).
 */
const never = (name, from, folders) => {
  const patterns = folders.map((folder) => ({
    regex: importsFolder(folder),
    message: `Never rule: ${name} (ARCHITECTURE.md rule 11).`,
  }));
  // esquery regexes cannot contain '/', so the expression forms spell it \x2F.
  const selectorRegex = `(^|\\x2F)(${folders.join('|')})(\\x2F|\\.js$|$)`;
  return {
    name: `house/never: ${name}`,
    files: [`${from}/**/*.ts`],
    rules: {
      'no-restricted-imports': ['error', { patterns }],
      'no-restricted-syntax': [
        'error',
        ...['ImportExpression', 'TSImportType'].map((node) => ({
          selector: `${node}[source.value=/${selectorRegex}/]`,
          message: `Never rule: ${name} (ARCHITECTURE.md rule 11).`,
        })),
      ],
    },
  };
};

export default defineConfig(
  { ignores: ['dist/', 'node_modules/', 'bench/', 'coverage/'] },
  {
    name: 'house/base',
    files: ['**/*.ts', '**/*.mjs', '**/*.js'],
    languageOptions: { parser: tseslint.parser, ecmaVersion: 2023, sourceType: 'module' },
    plugins: { '@typescript-eslint': tseslint.plugin },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
    },
  },
  {
    // Logs go through pino with redaction (STYLE.md §2.10); scripts and tests may print.
    name: 'house/no-console',
    files: ['src/**/*.ts'],
    rules: { 'no-console': 'error' },
  },
  {
    // Only main.ts reads the environment; everything else gets its slice of Config (STYLE.md §2.5).
    name: 'house/no-process-env',
    files: ['src/**/*.ts'],
    // The importer is a process entry of its own (npm run import), read as main.ts reads it.
    ignores: ['src/main.ts', 'src/import/cli.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'Only src/main.ts reads process.env; take a setting from Config (STYLE.md §2.5).' },
      ],
    },
  },
  {
    // Test files share worker processes (vitest.config.ts, `isolate: false`): a module mock would
    // reach the files that run after it in the same worker.
    name: 'house/no-module-mocks',
    files: ['test/**/*.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        { object: 'vi', property: 'mock', message: 'Test files share workers (isolate: false): pass a fake through the code\'s options instead.' },
        { object: 'vi', property: 'doMock', message: 'Test files share workers (isolate: false): pass a fake through the code\'s options instead.' },
      ],
    },
  },
  never('management never imports the app server (nor the importer)', 'src/management', ['appserver', 'import']),
  never('the app server never imports management (nor the importer)', 'src/appserver', ['management', 'import']),
  never('the platform imports no domain', 'src/platform', ['management', 'appserver', 'import']),
  // The switch-over importer writes the target's tables with SQL of its own (src/import/engine.ts):
  // it depends on their shape, never on the domains' code, and the service never loads it.
  never('the importer imports no domain', 'src/import', ['management', 'appserver']),
);
