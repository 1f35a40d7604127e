/**
 * The client store's two caches (oauth/clients/client-store.ts): clients for `CLIENT_TTL_MS`, and
 * verified secrets while the client keeps that hash; each bounded, least recently used first out.
 * Rows are changed behind the store's back (as another instance would), so what a lookup answers
 * shows whether it came from the cache. bcrypt is the real one, counted through a spy the store is
 * given.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import bcrypt from '@node-rs/bcrypt';
import { buildTestApp, type TestApp } from '../../../helpers/build-test-app.js';
import { unique } from '../../../helpers/management-api.js';
import { CLIENT_TTL_MS, createClientStore } from '../../../../src/management/oauth/clients/client-store.js';
import { updateClient, upsertClient } from '../../../../src/management/oauth/clients/queries.js';
import { verifyPassword } from '../../../../src/management/security/passwords.js';
import type { Database } from '../../../../src/platform/database.js';

const verify = vi.fn(verifyPassword);
const bcryptChecks = () => verify.mock.calls.length;

let t: TestApp;
let db: Database;
beforeAll(async () => {
  t = await buildTestApp();
  db = t.app.db.db;
});
afterAll(async () => t?.close());
beforeEach(() => { verify.mockClear(); });

/** A confidential client in the database; bcrypt cost 4 keeps the test quick. */
async function aClient(secret: string | null = null) {
  const clientId = unique('cache');
  await upsertClient(db, {
    clientId, resourceIds: ['res_ManagementPortal'], clientSecret: secret === null ? null : await bcrypt.hash(secret, 4),
    scope: ['SUBJECT.READ'], authorizedGrantTypes: ['client_credentials'],
  });
  return clientId;
}

describe('client cache', () => {
  it(`answers from memory for ${CLIENT_TTL_MS} ms, unknown ids too, then reads the database again`, async () => {
    let now = 1_000_000;
    const store = createClientStore({ db, now: () => now, verifyPassword: verify });
    const known = await aClient();
    const unknown = unique('later');
    expect((await store.get(known))?.scope).toEqual(['SUBJECT.READ']);
    expect(await store.get(unknown)).toBeUndefined();
    await updateClient(db, known, { scope: ['PROJECT.READ'] });
    await upsertClient(db, { clientId: unknown, resourceIds: [], scope: ['SUBJECT.READ'], authorizedGrantTypes: ['client_credentials'] });

    now += CLIENT_TTL_MS - 1;
    expect((await store.get(known))?.scope).toEqual(['SUBJECT.READ']);
    expect(await store.get(unknown)).toBeUndefined();

    now += 2;
    expect((await store.get(known))?.scope).toEqual(['PROJECT.READ']);
    expect((await store.get(unknown))?.clientId).toBe(unknown);
  });

  it('keeps at most maxEntries clients, dropping the least recently used', async () => {
    const store = createClientStore({ db, maxEntries: 2, verifyPassword: verify });
    const [a, b, c] = [unique('a'), unique('b'), unique('c')];
    // Unknown when first asked; created behind the store's back afterwards.
    for (const id of [a, b]) expect(await store.get(id)).toBeUndefined();
    for (const id of [a, b, c]) await upsertClient(db, { clientId: id, resourceIds: [], scope: [], authorizedGrantTypes: ['client_credentials'] });
    expect(await store.get(a)).toBeUndefined(); // remembered; now b is the least recently used
    expect((await store.get(c))?.clientId).toBe(c); // pushes b out
    expect(await store.get(a)).toBeUndefined();
    expect((await store.get(b))?.clientId).toBe(b);
  });
});

describe('verified-secret cache', () => {
  it('checks a secret with bcrypt once, and again only after the client\'s hash changed', async () => {
    let now = 1_000_000;
    const store = createClientStore({ db, now: () => now, verifyPassword: verify });
    const id = await aClient('first secret');
    for (let i = 0; i < 3; i++) expect((await store.authenticate(id, 'first secret'))?.clientId).toBe(id);
    expect(await store.authenticate(id, 'wrong')).toBeUndefined();
    expect(bcryptChecks()).toBe(2);

    // Changed elsewhere: once the cached client is re-read, the remembered pair no longer counts.
    await updateClient(db, id, { clientSecret: await bcrypt.hash('second secret', 4) });
    now += CLIENT_TTL_MS + 1;
    expect(await store.authenticate(id, 'first secret')).toBeUndefined();
    expect((await store.authenticate(id, 'second secret'))?.clientId).toBe(id);
    expect(bcryptChecks()).toBe(4);
  });

  it('keeps at most maxEntries verified secrets, dropping the least recently used', async () => {
    const store = createClientStore({ db, maxEntries: 2, verifyPassword: verify });
    const [a, b, c] = [await aClient('sa'), await aClient('sb'), await aClient('sc')];
    await store.authenticate(a, 'sa');
    await store.authenticate(b, 'sb');
    await store.authenticate(a, 'sa'); // remembered; now b is the least recently used
    expect(bcryptChecks()).toBe(2);
    await store.authenticate(c, 'sc'); // pushes b out
    expect(bcryptChecks()).toBe(3);
    expect((await store.authenticate(a, 'sa'))?.clientId).toBe(a);
    expect(bcryptChecks()).toBe(3);
    expect((await store.authenticate(b, 'sb'))?.clientId).toBe(b);
    expect(bcryptChecks()).toBe(4);
  });

  it('concurrent requests with one (client, secret) share one bcrypt check', async () => {
    const store = createClientStore({ db, verifyPassword: verify });
    const id = await aClient('together');
    const results = await Promise.all(Array.from({ length: 5 }, () => store.authenticate(id, 'together')));
    expect(results.every((client) => client?.clientId === id)).toBe(true);
    expect(bcryptChecks()).toBe(1);
  });
});
