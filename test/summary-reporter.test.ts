/** The closing lines of test/summary-reporter.ts: skips counted by reason, then the plain last line. */
import { describe, expect, it, vi } from 'vitest';
import type { TestModule } from 'vitest/node';
import SummaryReporter from './summary-reporter.js';

type Meta = { skipReason?: string };
const suite = (meta: Meta, parent: unknown = { type: 'module' }) => ({ type: 'suite', meta: () => meta, parent });
const aTest = (state: string, parent: unknown, extra: { note?: string; meta?: Meta; mode?: string } = {}) => ({
  result: () => ({ state, note: extra.note }), meta: () => extra.meta ?? {}, parent, options: { mode: extra.mode ?? 'run' },
});

describe('summary reporter', () => {
  it('counts skips by the reason of the test, its block or ctx.skip, most first, then `N passed, N failed, N skipped`', () => {
    const postgresOnly = suite({ skipReason: 'PostgreSQL only' });
    const tests = [
      aTest('passed', { type: 'module' }), aTest('failed', { type: 'module' }),
      aTest('skipped', suite({}, postgresOnly)), aTest('skipped', postgresOnly),
      aTest('skipped', { type: 'module' }, { meta: { skipReason: 'no Chromium' } }),
      aTest('skipped', { type: 'module' }, { note: 'noted' }),
      aTest('skipped', { type: 'module' }),
    ];
    const module = { children: { allTests: () => tests }, state: () => 'failed' };
    const out: string[] = [];
    const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => { out.push(String(chunk)); return true; });
    try {
      new SummaryReporter().onTestRunEnd([module as unknown as TestModule]);
    } finally {
      write.mockRestore();
    }
    const lines = out.join('').trim().split('\n');
    expect(lines.at(-2)).toBe('skipped by reason: 2 PostgreSQL only; 1 no Chromium; 1 noted; 1 no reason given');
    expect(lines.at(-1)).toBe('1 passed, 1 failed, 5 skipped');
  });
});
