/**
 * Prints the run's time and the skips by reason, each on one line, then one plain closing line, `N passed, N failed,
 * N skipped`, that any CI log reader understands. A skip's reason is the note of `ctx.skip(note)`
 * or the `skipReason` of an enclosing block (test/helpers/skips.ts).
 */
import type { Reporter, TestCase, TestModule } from 'vitest/node';

function skipReason(test: TestCase): string {
  const result = test.result();
  if (result.state === 'skipped' && result.note) return result.note;
  if (test.meta().skipReason) return test.meta().skipReason!;
  for (let parent = test.parent; parent.type === 'suite'; parent = parent.parent) {
    const reason = parent.meta().skipReason;
    if (reason) return reason;
  }
  return test.options.mode === 'todo' ? 'todo' : 'no reason given';
}

export default class SummaryReporter implements Reporter {
  private started = performance.now();

  onTestRunStart() {
    this.started = performance.now();
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>) {
    let passed = 0;
    let failed = 0;
    const skips = new Map<string, number>();
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failed++;
        else {
          const reason = skipReason(test);
          skips.set(reason, (skips.get(reason) ?? 0) + 1);
        }
      }
      if (module.state() === 'failed' && [...module.children.allTests()].length === 0) failed++;
    }
    const skipped = [...skips.values()].reduce((a, b) => a + b, 0);
    const reasons = [...skips].sort((a, b) => b[1] - a[1]).map(([reason, n]) => `${n} ${reason}`);
    process.stdout.write(`\nvitest run: ${((performance.now() - this.started) / 1000).toFixed(0)} s\n`);
    process.stdout.write(`skipped by reason: ${reasons.length ? reasons.join('; ') : 'none'}\n`);
    process.stdout.write(`${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
