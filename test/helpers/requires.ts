/**
 * Blocks that run only where something holds (a database kind, Chromium, the built service), with
 * what is missing named once: `describe('…', requires(postgresProject, builtService), () => …)`.
 * The summary reporter (test/summary-reporter.ts) counts skipped tests by these reasons.
 */
import type { TestOptions } from 'vitest';

declare module 'vitest' {
  interface TaskMeta {
    /** Why the block is skipped where it is (set by `requires`). */
    skipReason?: string;
  }
}

/** Whether a block's condition holds here, and what the summary says when it does not. */
export type Need = readonly [holds: boolean, reason: string];

/** `describe`'s options: skipped, with the first unmet need's reason, unless every need holds. */
export function requires(...needs: Need[]): TestOptions {
  const unmet = needs.find(([holds]) => !holds);
  return unmet ? { skip: true, meta: { skipReason: unmet[1] } } : {};
}

export const postgresProject: Need = [process.env.TEST_DB === 'postgres', 'PostgreSQL only (the postgres projects run it)'];
export const pgliteProject: Need = [process.env.TEST_DB !== 'postgres', 'PGlite only (the pglite projects run it)'];
