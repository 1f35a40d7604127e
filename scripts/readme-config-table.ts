/**
 * Prints the README's configuration table from `settingsTable()`:
 * `npx tsx scripts/readme-config-table.ts`, then paste the output under "Configuration".
 * test/config.test.ts fails when a setting is missing from the README.
 */
import { settingsTable } from '../src/config.js';

const cell = (text: string): string => text.replace(/\|/g, '\\|');

const lines = [
  '| Variable | Default | Meaning | Spring property also read |',
  '|---|---|---|---|',
  ...settingsTable().map((row) =>
    `| \`${row.env}\` | ${row.default === '' ? '–' : row.default === '(empty)' ? 'empty' : `\`${cell(row.default)}\``} | ${cell(row.doc)} | ${row.spring ? `\`${row.spring}\`` : ''} |`),
];
process.stdout.write(`${lines.join('\n')}\n`);
