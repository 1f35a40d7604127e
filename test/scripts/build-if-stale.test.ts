/**
 * `npm start` rebuilds only a stale dist/ (scripts/build-if-stale.mjs): the staleness check on
 * a throw-away tree with set modification times. tsc itself is not run here.
 */
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { STAMP, staleReason } from '../../scripts/build-if-stale.mjs';

let root: string;
const T0 = new Date('2026-01-01T00:00:00Z');
const minutes = (n: number) => new Date(T0.getTime() + n * 60_000);

/** Writes `rel` under root (creating folders) with modification time `at`, folders included. */
function file(rel: string, at: Date) {
  const path = join(root, rel);
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, '');
  utimesSync(path, at, at);
  utimesSync(join(path, '..'), at, at);
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'build-if-stale-'));
  file('src/main.ts', T0);
  file('src/management/plugin.ts', T0);
  file('tsconfig.json', T0);
  file('tsconfig.build.json', T0);
  file('package.json', T0);
  utimesSync(join(root, 'src'), T0, T0);
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('staleReason', () => {
  it('a fresh clone (no dist/) builds', () => {
    expect(staleReason(root)).toBe('no previous build');
  });

  it('a stamp newer than every input skips the build, and a missing lockfile is no reason', () => {
    file(STAMP, minutes(1));
    expect(staleReason(root)).toBeNull();
  });

  it('a source file edited after the build, however deep, makes it stale', () => {
    file(STAMP, minutes(1));
    file('src/management/plugin.ts', minutes(2));
    utimesSync(join(root, 'src/management'), T0, T0);
    expect(staleReason(root)).toBe(`${join('src', 'management', 'plugin.ts')} changed`);
  });

  it('a deleted or added source file (only its folder changes) makes it stale', () => {
    file(STAMP, minutes(1));
    rmSync(join(root, 'src/management/plugin.ts'));
    expect(staleReason(root)).toBe(`${join('src', 'management')} changed`);
  });

  it('a changed tsconfig, package.json or lockfile makes it stale', () => {
    file(STAMP, minutes(1));
    for (const [i, input] of ['tsconfig.build.json', 'package.json', 'package-lock.json'].entries()) {
      file(input, minutes(2 + i));
      expect(staleReason(root)).toBe(`${input} changed`);
      file(STAMP, minutes(2 + i));
    }
  });

  it('files outside the inputs (tests, docs) do not trigger a build', () => {
    file(STAMP, minutes(1));
    file('test/a.test.ts', minutes(2));
    file('README.md', minutes(2));
    utimesSync(root, T0, T0);
    expect(staleReason(root)).toBeNull();
  });
});
