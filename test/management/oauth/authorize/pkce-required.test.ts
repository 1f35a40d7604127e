/**
 * Issue 17 item 11: with MANAGEMENTPORTAL_OAUTH_REQUIRE_PKCE=true a public client's authorization
 * request without `code_challenge` is refused with `invalid_request` at its redirect URI (RFC 7636
 * §4.4.1, OAuth 2.1); with a challenge the flow works end to end. Confidential clients are not
 * affected, and by default (the reference's clients send no verifier) nothing changes.
 */
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { buildTestApp } from '../../../helpers/build-test-app.js';
import { aParticipant, aProject } from '../../../fixtures/management.js';
import { loadConfig } from '../../../../src/config.js';
import { hashPassword } from '../../../../src/management/security/passwords.js';
import { upsertClient } from '../../../../src/management/oauth/clients/queries.js';
import { oauthCodes } from '../../../../src/management/schema.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are checked by the assertions
type Json = any;

const MP = '/managementportal';
const PASSWORD = 'correct horse battery';
const REDIRECT = 'org.example.app:/oauth/callback';
const SECRET = 'confidential-secret';

const unique = (prefix: string) => `${prefix}-${randomBytes(4).toString('hex')}`;
const hidden = (html: string, name: string) => new RegExp(`name="${name}" value="([^"]+)"`).exec(html)?.[1] ?? '';

function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** An app, a signed-up participant, and the browser and token-endpoint steps against it. */
async function setUp(env: Record<string, string>) {
  const t = await buildTestApp(env);
  const db = t.app.db.db;
  const participant = await aParticipant(db, { project: await aProject(db), password: PASSWORD });

  async function aClient(opts: { secret?: string } = {}) {
    const clientId = unique('native');
    await upsertClient(db, {
      clientId, resourceIds: ['res_ManagementPortal'], clientSecret: opts.secret ? await hashPassword(opts.secret) : null,
      scope: ['SUBJECT.READ'], authorizedGrantTypes: ['authorization_code'], redirectUris: [REDIRECT], autoApprove: ['true'],
    });
    return clientId;
  }

  const authorize = (params: Record<string, string>) =>
    t.app.inject({ method: 'GET', url: `${MP}/oauth/authorize?${new URLSearchParams({ response_type: 'code', redirect_uri: REDIRECT, ...params })}` });

  /** Authorize and sign in (the clients auto-approve): the redirect location with the code. */
  async function codeFor(params: Record<string, string>): Promise<URL> {
    const page = await authorize(params);
    expect(page.statusCode, page.headers.location as string ?? page.body).toBe(200);
    const cookie = String([page.headers['set-cookie']].flat().find((c) => String(c).startsWith('mp_oauth_session='))).split(';')[0]!;
    const signIn = await t.app.inject({
      method: 'POST', url: `${MP}/oauth/login`, headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
      payload: new URLSearchParams({
        username: participant.login, password: PASSWORD, _csrf: hidden(page.body, '_csrf'), request_id: hidden(page.body, 'request_id'),
      }).toString(),
    });
    expect(signIn.statusCode, signIn.body).toBe(302);
    return new URL(signIn.headers.location as string);
  }

  async function token(fields: Record<string, string>) {
    const res = await t.app.inject({
      method: 'POST', url: `${MP}/oauth/token`, headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ grant_type: 'authorization_code', redirect_uri: REDIRECT, ...fields }).toString(),
    });
    return { status: res.statusCode, body: res.json() as Json };
  }

  return { t, db, participant, aClient, authorize, codeFor, token };
}

describe('MANAGEMENTPORTAL_OAUTH_REQUIRE_PKCE=true', () => {
  let s: Awaited<ReturnType<typeof setUp>>;
  beforeAll(async () => { s = await setUp({ MANAGEMENTPORTAL_OAUTH_REQUIRE_PKCE: 'true' }); });
  afterAll(async () => { await s.t.close(); });

  it('a public client without code_challenge is redirected with invalid_request and the state; no session, no code', async () => {
    const clientId = await s.aClient();
    const res = await s.authorize({ client_id: clientId, state: 'st-1' });
    expect(res.statusCode).toBe(302);
    expect(res.headers['set-cookie']).toBeUndefined();
    const location = new URL(res.headers.location as string);
    expect(`${location.protocol}${location.pathname}`).toBe(REDIRECT);
    expect(Object.fromEntries(location.searchParams)).toEqual({
      error: 'invalid_request',
      error_description: 'Code challenge required: public clients must send code_challenge with code_challenge_method=S256',
      state: 'st-1',
    });
    expect(await s.db.select().from(oauthCodes).where(eq(oauthCodes.clientId, clientId))).toEqual([]);
  });

  it('a public client with an S256 challenge gets a code, and the code with its verifier buys a token', async () => {
    const clientId = await s.aClient();
    const { verifier, challenge } = pkce();
    const location = await s.codeFor({ client_id: clientId, state: 'st-2', code_challenge: challenge, code_challenge_method: 'S256' });
    expect(location.searchParams.get('state')).toBe('st-2');
    const code = location.searchParams.get('code')!;
    const res = await s.token({ client_id: clientId, code, code_verifier: verifier });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ sub: s.participant.login, grant_type: 'authorization_code', access_token: expect.any(String) });
  });

  it('a confidential client without PKCE still works', async () => {
    const clientId = await s.aClient({ secret: SECRET });
    const code = (await s.codeFor({ client_id: clientId })).searchParams.get('code')!;
    const res = await s.token({ client_id: clientId, client_secret: SECRET, code });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.sub).toBe(s.participant.login);
  });
});

describe('MANAGEMENTPORTAL_OAUTH_REQUIRE_PKCE unset (default false)', () => {
  let s: Awaited<ReturnType<typeof setUp>>;
  beforeAll(async () => { s = await setUp({}); });
  afterAll(async () => { await s.t.close(); });

  it('a public client without PKCE works as before (the reference\'s clients send no verifier)', async () => {
    const clientId = await s.aClient();
    const code = (await s.codeFor({ client_id: clientId })).searchParams.get('code')!;
    const res = await s.token({ client_id: clientId, code });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.sub).toBe(s.participant.login);
  });
});

describe('the setting', () => {
  it('defaults to false and is also read as the Spring property managementportal.oauth.requirePkce', () => {
    expect(loadConfig({ PROFILE: 'dev' }).managementportalOauthRequirePkce).toBe(false);
    expect(loadConfig({ PROFILE: 'dev', MANAGEMENTPORTAL_OAUTH_REQUIRE_PKCE: 'true' }).managementportalOauthRequirePkce).toBe(true);
    expect(loadConfig({ PROFILE: 'dev', SPRING_APPLICATION_JSON: JSON.stringify({ managementportal: { oauth: { requirePkce: true } } }) })
      .managementportalOauthRequirePkce).toBe(true);
  });
});
