import { describe, expect, it } from 'vitest';
import { BCRYPT_COST, hashPassword, verifyPassword } from '../../../src/management/security/passwords.js';

/**
 * Known vectors, computed with bcryptjs 3 (the previous implementation) before it was removed:
 * one salt under the three prefixes the reference's hashes and other tools use. A non-ASCII
 * password is where implementations (and the `$2a$`/`$2x$`/`$2y$` history) differ.
 */
const KNOWN_PASSWORD = 'Pässwörd-ü1€';
const KNOWN = {
  $2a$: '$2a$10$Q7ZaXw9y1XrYbS3h0vN1CeO7UO885VWncQQjFlym0b.p1c0RV4XfS',
  $2b$: '$2b$10$Q7ZaXw9y1XrYbS3h0vN1CeO7UO885VWncQQjFlym0b.p1c0RV4XfS',
  $2y$: '$2y$10$Q7ZaXw9y1XrYbS3h0vN1CeO7UO885VWncQQjFlym0b.p1c0RV4XfS',
};
/** JHipster's seed hash of `admin` (`$2a$10$`, Spring's BCryptPasswordEncoder), which ManagementPortal installs inherited. */
const SPRING_ADMIN_HASH = '$2a$10$gSAhZrxMllrbgj/kkK9UceBPpChGWJA7SYIb1Mqo.n5aNLq1/oRrC';
/** The demo data's `padmin` hash (bcryptjs, `$2b$10$`). */
const DEMO_PADMIN_HASH = '$2b$10$26F4K8/BntR7SnYrI5jixuoXGcbfzJdeCa1fnFZ.154zNqDNAtnSm';
/** A 100-character password (the longest allowed) and its bcryptjs hash (cost 4): bcrypt reads the first 72 bytes only. */
const LONG_PASSWORD = `A1b${'x'.repeat(97)}`;
const LONG_HASH = '$2b$04$vazJb5XlnQuFJpVzWN6SueRY5OQzrMWedAt4iBtX8ygnB8yWmqioa';

describe('verifyPassword', () => {
  it('verifies existing $2a$, $2b$ and $2y$ hashes unchanged, and refuses a wrong password', async () => {
    for (const [prefix, hash] of Object.entries(KNOWN)) {
      expect(await verifyPassword(KNOWN_PASSWORD, hash), prefix).toBe(true);
      expect(await verifyPassword('Passwörd-ü1€', hash), prefix).toBe(false);
    }
    expect(await verifyPassword('admin', SPRING_ADMIN_HASH)).toBe(true);
    expect(await verifyPassword('Admin', SPRING_ADMIN_HASH)).toBe(false);
    expect(await verifyPassword('padmin', DEMO_PADMIN_HASH)).toBe(true);
    // Long passwords keep bcrypt's 72-byte rule, so their users still sign in.
    expect(await verifyPassword(LONG_PASSWORD, LONG_HASH)).toBe(true);
    expect(await verifyPassword(LONG_PASSWORD.slice(0, 72), LONG_HASH)).toBe(true);
    expect(await verifyPassword(LONG_PASSWORD.slice(0, 71), LONG_HASH)).toBe(false);
  });

  it('answers false for no stored hash or a malformed one, whatever the password', async () => {
    for (const stored of [null, undefined, '', 'not-a-bcrypt-hash']) {
      expect(await verifyPassword('', stored)).toBe(false);
      expect(await verifyPassword('anything', stored)).toBe(false);
    }
  });

  it('costs an unknown user about as much as a known one (one comparison at the same cost)', async () => {
    const known = await hashPassword('Secret-passw0rd');
    const time = async (stored: string | null) => {
      const start = performance.now();
      for (let i = 0; i < 3; i++) await verifyPassword('wrong-password', stored);
      return performance.now() - start;
    };
    await time(null); // warm up
    const [withHash, without] = [await time(known), await time(null)];
    // A shortcut for unknown users would be ~1000× faster; equal-cost comparisons stay close.
    expect(without).toBeGreaterThan(withHash / 10);
  });
});

describe('hashPassword', () => {
  it('hashes at cost 10 ($2b$10$), salted, and verifies what it hashed', async () => {
    const [a, b] = await Promise.all([hashPassword('Secret-passw0rd'), hashPassword('Secret-passw0rd')]);
    expect(BCRYPT_COST).toBe(10);
    expect(a).toMatch(/^\$2b\$10\$[./A-Za-z0-9]{53}$/);
    expect(a).not.toBe(b);
    expect(await verifyPassword('Secret-passw0rd', a)).toBe(true);
    expect(await verifyPassword('Secret-passw0rD', a)).toBe(false);
    expect(await verifyPassword(LONG_PASSWORD, await hashPassword(LONG_PASSWORD))).toBe(true);
  });
});

describe('the event loop while comparisons are pending', () => {
  it('keeps turning: timers and setImmediate run before any of 8 cost-10 comparisons resolves', async () => {
    const order: string[] = [];
    const started = performance.now();
    const compares = Array.from({ length: 8 }, (_, i) =>
      verifyPassword(`wrong-${i}`, KNOWN.$2a$).then(() => { order.push(`compare ${i}`); }));
    // Scheduled after the comparisons started: with bcrypt on the main thread these would wait
    // for (at least) the first comparison to finish.
    const immediate = new Promise<void>((resolve) => setImmediate(() => { order.push('setImmediate'); resolve(); }));
    const timer = new Promise<void>((resolve) => setTimeout(() => { order.push('setTimeout 0'); resolve(); }, 0));
    await Promise.all([immediate, timer]);
    const loopFreeAfter = performance.now() - started;
    await Promise.all(compares);
    const allDone = performance.now() - started;

    expect(order.slice(0, 2).sort()).toEqual(['setImmediate', 'setTimeout 0']);
    expect(order.slice(2)).toHaveLength(8);
    // The loop was free in a fraction of the time the comparisons took (8 × ~50 ms on 4 threads).
    expect(loopFreeAfter).toBeLessThan(allDone / 4);
  });
});
