/**
 * The authorization endpoint's rules (RFC 6749 §4.1, RFC 7636): validate an authorization
 * request, sign a user in, decide whether consent is needed, and issue a code. Nothing here sees
 * the HTTP request; the routes pass plain values and a session.
 */
import { randomBytes } from 'node:crypto';
import { constantEquals } from '../../../platform/constant-equals.js';
import type { Database } from '../../../platform/database.js';
import type { ClientStore, OAuthClient } from '../clients/client-store.js';
import type { PendingAuthorization } from '../../schema.js';
import { createPasswordSignIn } from '../sign-in.js';
import { InvalidRequest, InvalidScope, OAuthError, UnauthorizedClient } from '../errors.js';
import { clientScope, parseScope } from '../grants/shared.js';
import { allApproved, rememberAnswers, type ScopeAnswers } from './approvals.js';
import { insertCode } from './codes.js';
import { AccessDenied, AuthorizationPageError, AuthorizationRedirect, redirectTo, UnsupportedResponseType } from './errors.js';
import type { FailedAttemptLimiter } from '../limiter.js';
import type { AuditLog } from '../../audit/audit-log.js';
import { isPkceValue } from './pkce.js';

export interface AuthorizationQuery {
  client_id?: string;
  response_type?: string;
  redirect_uri?: string;
  state?: string;
  scope?: string;
  code_challenge?: string;
  code_challenge_method?: string;
}

/** What the consent page shows. */
export interface ConsentView {
  /** The request the page answers; its form sends it back (`checkAnswersPending`). */
  requestId: string;
  clientId: string;
  scope: string[];
}

export type NextStep = { redirect: string } | { consent: ConsentView };

/** What the consent form sent: its `user_oauth_approval` and its `scope.<name>` fields by scope name. */
export interface ConsentAnswer {
  userOauthApproval: string | undefined;
  scopes: ReadonlyMap<string, string>;
}

/**
 * A `scope.<name>` value that approves, as the reference's `ApprovalStoreUserApprovalHandler`
 * reads it: `true`, or a word starting with `approve`, in any case. Anything else (and a missing
 * field: an unticked checkbox is not sent) denies.
 */
const approves = (value: string | undefined) => {
  const v = (value ?? '').toLowerCase();
  return v === 'true' || v.startsWith('approve');
};

/**
 * The answer for each of `requested` (and for nothing else: a field for a scope the request did not
 * ask for is ignored, as the reference iterates the requested scopes). The Deny button
 * (`user_oauth_approval` other than `true`) denies every scope whatever boxes are ticked: it sits
 * in the same form, so the ticked boxes come with it.
 */
export function scopeAnswers(requested: readonly string[], answer: ConsentAnswer): ScopeAnswers {
  if (answer.userOauthApproval !== 'true') return { approved: [], denied: [...requested] };
  const approved = requested.filter((s) => approves(answer.scopes.get(s)));
  return { approved, denied: requested.filter((s) => !approved.includes(s)) };
}

/** A registered redirect URI may not carry a fragment (RFC 6749 §3.1.2); custom schemes are fine. */
const usableRedirectUri = (uri: string) => URL.canParse(uri) && !uri.includes('#');

function autoApproved(client: OAuthClient, scope: readonly string[]): boolean {
  if (client.autoApprove.includes('true')) return true;
  return scope.every((s) => client.autoApprove.includes(s));
}

export interface AuthorizeService {
  /**
   * The validated request. Throws `AuthorizationPageError` for an unknown client or a redirect URI
   * that is not registered, `AuthorizationRedirect` for every other error.
   */
  validateRequest(query: AuthorizationQuery): Promise<PendingAuthorization>;
  /**
   * The user's login when the password is right and the account activated, else undefined.
   * Failures count in the token endpoint's limiter under the same (username, IP) key as the
   * password grant; throws `TooManyFailedAttempts` while that key is blocked.
   */
  signIn(username: string, password: string, ip: string): Promise<string | undefined>;
  /**
   * After sign-in: the redirect with a code when the scopes are auto-approved or the user approved
   * them all for this client within the last month (approvals.ts), else the consent page.
   */
  afterSignIn(request: PendingAuthorization, login: string): Promise<NextStep>;
  /**
   * Throws `AuthorizationPageError` (400) unless `requestId`, sent by a sign-in or consent form, is
   * the id of `pending`, the session's current request: a page left open in another tab must not
   * answer (and so grant) a request started after it.
   */
  checkAnswersPending(pending: PendingAuthorization, requestId: string | undefined): void;
  /**
   * The user's answer on the consent page, remembered scope by scope (`scopeAnswers`): the redirect
   * with a code for exactly the approved scopes, or with `access_denied` when none is approved.
   * Only scopes the request asked for and the client still has count. The answers and the code
   * commit together. Throws `AuthorizationPageError` when the client has gone since the request.
   */
  decide(request: PendingAuthorization, login: string, answer: ConsentAnswer): Promise<string>;
}

export function createAuthorizeService(deps: {
  db: Database; clients: ClientStore; now: () => number; limiter?: FailedAttemptLimiter | undefined; audit?: AuditLog | undefined;
  /** MANAGEMENTPORTAL_OAUTH_REQUIRE_PKCE: public clients must send a code_challenge. */
  requirePkce?: boolean | undefined;
}): AuthorizeService {
  async function issueRedirect(request: PendingAuthorization, login: string): Promise<string> {
    const code = await insertCode(deps.db, request, login, new Date(deps.now()));
    return redirectTo(request.redirectUri, { code, state: request.state });
  }

  const signIn = createPasswordSignIn({ ...deps, via: 'OAuth sign-in page' });

  return {
    async validateRequest(query) {
      const client = query.client_id ? await deps.clients.get(query.client_id) : undefined;
      if (!client) throw new AuthorizationPageError(400, 'oauth.unknownClient');
      let redirectUri = query.redirect_uri;
      if (redirectUri === undefined) {
        // RFC 6749 §3.1.2.3: may be omitted when exactly one is registered.
        if (client.redirectUris.length !== 1) throw new AuthorizationPageError(400, 'oauth.noRedirectUri');
        redirectUri = client.redirectUris[0]!;
      } else if (!client.redirectUris.includes(redirectUri)) {
        throw new AuthorizationPageError(400, 'oauth.redirectUriNotRegistered');
      }
      if (!usableRedirectUri(redirectUri)) throw new AuthorizationPageError(400, 'oauth.redirectUriInvalid');

      const state = query.state ?? null;
      const fail = (error: OAuthError): never => { throw new AuthorizationRedirect(redirectUri, state, error); };
      if (!query.response_type) fail(new InvalidRequest('Missing response_type'));
      if (query.response_type !== 'code') fail(new UnsupportedResponseType('Only response_type=code is supported'));
      if (!client.authorizedGrantTypes.includes('authorization_code')) fail(new UnauthorizedClient('The client may not use the authorization code grant'));
      let scope: string[] = [];
      try {
        scope = clientScope(client, parseScope(query.scope));
      } catch (err) {
        if (err instanceof InvalidScope) fail(err);
        throw err;
      }
      let codeChallenge: string | null = null;
      let codeChallengeMethod: 'S256' | null = null;
      if (query.code_challenge !== undefined) {
        if (!isPkceValue(query.code_challenge)) fail(new InvalidRequest('Invalid code_challenge'));
        // Issue deviation: `plain` is refused (RFC 7636 §4.2 lets servers require S256).
        if ((query.code_challenge_method ?? 'plain') !== 'S256') fail(new InvalidRequest('code_challenge_method must be S256'));
        codeChallenge = query.code_challenge;
        codeChallengeMethod = 'S256';
      } else if (query.code_challenge_method !== undefined) {
        fail(new InvalidRequest('code_challenge_method without code_challenge'));
      }
      // RFC 7636 §4.4.1 and OAuth 2.1 §4.1.1: a public client's code is only safe with PKCE, since
      // no secret stops whoever intercepts the redirect from redeeming it. Off by default: the
      // reference's clients send no challenge.
      if (deps.requirePkce && !client.clientSecret && codeChallenge === null) {
        fail(new InvalidRequest('Code challenge required: public clients must send code_challenge with code_challenge_method=S256'));
      }
      return {
        requestId: randomBytes(24).toString('base64url'),
        clientId: client.clientId, redirectUri, redirectUriGiven: query.redirect_uri !== undefined, state, scope,
        codeChallenge, codeChallengeMethod,
      };
    },

    signIn,

    async afterSignIn(request, login) {
      const client = await deps.clients.get(request.clientId);
      if (!client) throw new AuthorizationPageError(400, 'oauth.unknownClient');
      // As the reference: all auto-approved, or all approved by the user. A mix asks, since the page
      // lets the user untick an auto-approved scope too (and that answer must then hold).
      if (autoApproved(client, request.scope) || await allApproved(deps.db, login, client.clientId, request.scope, new Date(deps.now()))) {
        return { redirect: await issueRedirect(request, login) };
      }
      return { consent: { requestId: request.requestId, clientId: client.clientId, scope: request.scope } };
    },

    checkAnswersPending(pending, requestId) {
      // A session stored before requests had ids has none, and so no form can answer it.
      const expected = typeof pending.requestId === 'string' ? pending.requestId : '';
      if (expected === '' || !constantEquals(expected, requestId ?? '')) {
        throw new AuthorizationPageError(400, 'oauth.outOfDate');
      }
    },

    async decide(request, login, answer) {
      const client = await deps.clients.get(request.clientId);
      if (!client) throw new AuthorizationPageError(400, 'oauth.unknownClient');
      // The request's scopes were the client's when it was made; an administrator may have narrowed them since.
      const requested = client.scope.length === 0 ? request.scope : request.scope.filter((s) => client.scope.includes(s));
      const answers = scopeAnswers(requested, answer);
      const now = new Date(deps.now());
      // As the reference: approving none of a non-empty request is a denial (so is a request whose
      // every scope the client has lost since).
      if (answers.approved.length === 0 && request.scope.length > 0) {
        await rememberAnswers(deps.db, login, client.clientId, answers, now);
        return new AuthorizationRedirect(request.redirectUri, request.state, new AccessDenied('The user denied access')).location;
      }
      const code = await deps.db.transaction(async (tx) => {
        await rememberAnswers(tx, login, client.clientId, answers, now);
        return insertCode(tx, { ...request, scope: [...answers.approved] }, login, now);
      });
      return redirectTo(request.redirectUri, { code, state: request.state });
    },
  };
}
