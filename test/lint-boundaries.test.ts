/**
 * The house's never rules as `npm run lint` enforces them (eslint.config.js, ARCHITECTURE.md
 * rule 11): planted code is linted in memory under a made-up path, nothing is written to disk.
 */
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));
let eslint: ESLint;

beforeAll(() => {
  eslint = new ESLint({ cwd: root });
});

/** Lints `code` as if it were the file `filePath` (relative to the repository root). */
async function lint(filePath: string, code: string) {
  const [result] = await eslint.lintText(code, { filePath });
  if (!result) throw new Error('ESLint returned no result');
  return {
    filePath: result.filePath,
    problems: result.messages.map((m) => ({ rule: m.ruleId, message: m.message, severity: m.severity })),
  };
}

describe('domain boundaries', () => {
  const cases = [
    {
      rule: 'management never imports the app server',
      file: 'src/management/api/projects/service.ts',
      code: "import { appserverPlugin } from '../../../appserver/plugin.js';\nexport const p = appserverPlugin;\n",
    },
    {
      rule: 'management never imports the app server',
      file: 'src/management/oauth/x.ts',
      code: "export { appserverPlugin } from '../../appserver/plugin.js';\n",
    },
    {
      rule: 'the app server never imports management',
      file: 'src/appserver/notifications/service.ts',
      code: "import type { Actor } from '../../management/authz/actor.js';\nexport type A = Actor;\n",
    },
    {
      rule: 'the platform imports no domain',
      file: 'src/platform/events.ts',
      code: "import { x } from '../appserver/schema.js';\nexport const y = x;\n",
    },
    {
      rule: 'the platform imports no domain',
      file: 'src/platform/types.ts',
      code: "export * from '../management/errors.js';\n",
    },
    {
      rule: 'the importer imports no domain',
      file: 'src/import/engine.ts',
      code: "import { users } from '../management/schema.js';\nexport const u = users;\n",
    },
    {
      // The service never loads the switch-over importer (issue 32).
      rule: 'management never imports the app server (nor the importer)',
      file: 'src/management/plugin.ts',
      code: "import { runImport } from '../import/run.js';\nexport const r = runImport;\n",
    },
  ];

  it.each(cases)('$file: $rule', async ({ rule, file, code }) => {
    const { filePath, problems } = await lint(file, code);
    expect(filePath).toBe(`${root}${file}`);
    expect(problems).toEqual([{ rule: 'no-restricted-imports', severity: 2, message: expect.stringContaining(rule) }]);
  });

  it('import() in code or in a type position is caught as well', async () => {
    const { problems } = await lint(
      'src/management/api/subjects/service.ts',
      "export const load = () => import('../../../appserver/plugin.js');\n" +
        "export type P = import('../../../appserver/plugin.js').AppserverPluginOptions;\n",
    );
    expect(problems).toEqual([
      { rule: 'no-restricted-syntax', severity: 2, message: expect.stringContaining('management never imports the app server') },
      { rule: 'no-restricted-syntax', severity: 2, message: expect.stringContaining('management never imports the app server') },
    ]);
  });

  it('legal imports pass: a domain uses the platform and its own folders, app.ts wires both', async () => {
    expect((await lint(
      'src/management/api/projects/service.ts',
      "import { executedRows } from '../../../platform/database.js';\nimport { ProjectDto } from '../../schemas.js';\nexport const a = [executedRows, ProjectDto];\n",
    )).problems).toEqual([]);
    expect((await lint(
      'src/appserver/notifications/service.ts',
      "import { events } from '../../platform/events.js';\nimport { projects } from '../schema.js';\nexport const a = [events, projects];\n",
    )).problems).toEqual([]);
    expect((await lint(
      'src/app.ts',
      "import { managementPlugin } from './management/plugin.js';\nimport { appserverPlugin } from './appserver/plugin.js';\nexport const a = [managementPlugin, appserverPlugin];\n",
    )).problems).toEqual([]);
  });
});

describe('configuration and logging rules', () => {
  it('only src/main.ts reads process.env', async () => {
    const code = 'export const port = process.env.PORT;\n';
    expect((await lint('src/management/mail/x.ts', code)).problems).toEqual([
      { rule: 'no-restricted-properties', severity: 2, message: expect.stringContaining('Only src/main.ts reads process.env') },
    ]);
    expect((await lint('src/main.ts', code)).problems).toEqual([]);
  });

  it('console is an error in src/ and allowed in tests and scripts', async () => {
    const code = "console.log('hello');\n";
    expect((await lint('src/platform/x.ts', code)).problems).toEqual([
      { rule: 'no-console', severity: 2, message: expect.any(String) },
    ]);
    expect((await lint('test/x.test.ts', code)).problems).toEqual([]);
    expect((await lint('scripts/x.mjs', code)).problems).toEqual([]);
  });
});
