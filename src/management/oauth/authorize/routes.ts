/**
 * The authorization endpoint (RFC 6749 §4.1) with server-rendered pages:
 * `GET /oauth/authorize` validates the request and shows the sign-in page (or, for a signed-in
 * session, goes straight on); `POST /oauth/login` signs in; `POST /oauth/authorize` answers the
 * consent page. Forms post back relative to the page, so any context path works.
 *
 * The session cookie is signed, httpOnly, `SameSite=Lax` and `Secure` behind TLS; every form
 * carries the session's CSRF token in `_csrf`, and a POST without it is refused (403).
 * Registered in its own scope: form bodies, cookies and the HTML error pages apply here only.
 */
import type {} from '@fastify/view';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { documentClientErrors, errorPlace, logServerError } from '../../../platform/errors.js';
import { isDatabaseUnavailable } from '../../../platform/database.js';
import type { Session, SessionStore } from '../../session/sessions.js';
import { sessionIdOf, setSessionCookie as setCookie } from '../../session/cookie.js';
import { TooManyFailedAttempts } from '../limiter.js';
import { OAUTH_PAGE_CSP } from './page-csp.js';
import { AuthorizationPageError, AuthorizationRedirect, CsrfRejected } from './errors.js';
import type { AuthorizeService, NextStep } from './service.js';
import { LANGUAGE_COOKIE, LANGUAGE_NAMES, languageOf, translator, type MessageKey } from '../../i18n/translator.js';
import { AuthorizationQuerySchema, ConsentForm, HtmlPage, Redirect, SCOPE_FIELD_PREFIX, SignInForm } from './schemas.js';

const tags = ['management: oauth'];

/** The consent form's `scope.<name>` fields by scope name (a repeated field arrives as an array and is refused by the schema). */
function scopeFieldsOf(body: object): Map<string, string> {
  const fields = new Map<string, string>();
  for (const [name, value] of Object.entries(body)) {
    if (name.startsWith(SCOPE_FIELD_PREFIX) && typeof value === 'string') fields.set(name.slice(SCOPE_FIELD_PREFIX.length), value);
  }
  return fields;
}

export interface AuthorizeRoutesOptions {
  authorize: AuthorizeService;
  sessions: SessionStore;
  /** The session cookie's path: the whole management domain (sign-in pages, admin UI, API). */
  cookiePath: string;
  now: () => number;
  /** The account's language (`users.lang_key`) of a signed-in user, for the consent page. */
  languageOfUser: (login: string) => Promise<string | null>;
}

/** Form bodies, the signed session cookie and `reply.view` come from the pages scope (management/pages.ts). */
export const authorizeRoutes: FastifyPluginAsyncTypebox<AuthorizeRoutesOptions> = async (app, { authorize, sessions, cookiePath, now, languageOfUser }) => {

  /**
   * Renders `views/oauth/<template>` in the page's language: the `lang` cookie of the admin UI's
   * language switch, else the signed-in account's (`account`), else the browser's (i18n/translator.ts). A
   * GET page links the switch back to itself.
   */
  function page(request: FastifyRequest, reply: FastifyReply, status: number, template: string, data: Record<string, unknown>, account: string | null = null) {
    const lang = languageOf({ cookie: request.cookies[LANGUAGE_COOKIE], account, acceptLanguage: request.headers['accept-language'] });
    const back = request.method === 'GET' ? `&return=${encodeURIComponent(request.url)}` : '';
    const languages = Object.entries(LANGUAGE_NAMES).map(([code, name]) => ({
      lang: code, name, current: code === lang, href: `${cookiePath}language?lang=${code}${back}`,
    }));
    return reply.code(status)
      .header('content-type', 'text/html; charset=utf-8')
      .header('cache-control', 'no-store')
      .header('pragma', 'no-cache')
      .header('referrer-policy', 'no-referrer')
      .header('content-security-policy', OAUTH_PAGE_CSP)
      .view(`oauth/${template}`, { ...data, t: translator(lang), lang, languageSwitch: languages });
  }

  const setSessionCookie = (request: FastifyRequest, reply: FastifyReply, session: Session) => setCookie(request, reply, session, cookiePath);

  /** The session a form was posted in, when the form carries its CSRF token; else 403. */
  async function postedSession(request: FastifyRequest, csrf: string | undefined): Promise<Session> {
    const session = await sessions.load(sessionIdOf(request), request.ip);
    if (!session || !sessions.csrfMatches(session, csrf)) throw new CsrfRejected();
    return session;
  }

  async function proceed(request: FastifyRequest, reply: FastifyReply, session: Session, next: NextStep) {
    if ('redirect' in next) {
      session.pending = null;
      await sessions.save(session);
      return reply.header('cache-control', 'no-store').redirect(next.redirect, 302);
    }
    const account = session.userLogin ? await languageOfUser(session.userLogin) : null;
    return page(request, reply, 200, 'consent', {
      csrf: session.csrfToken, requestId: next.consent.requestId, clientId: next.consent.clientId, scope: next.consent.scope, user: session.userLogin,
    }, account);
  }

  app.setErrorHandler((error: FastifyError | AuthorizationRedirect | AuthorizationPageError, request, reply) => {
    if (error instanceof AuthorizationRedirect) {
      request.log.info({ error: error.oauthError.error }, 'authorization request refused');
      return reply.header('cache-control', 'no-store').redirect(error.location, 302);
    }
    if (error instanceof TooManyFailedAttempts) {
      request.log.info({ status: 429 }, 'sign-in limited');
      reply.header('retry-after', String(error.retryAfterSeconds));
      return page(request, reply, 429, 'error', { message: 'oauth.limited' satisfies MessageKey });
    }
    if (error instanceof AuthorizationPageError) {
      request.log.info({ status: error.status }, 'authorization page error');
      return page(request, reply, error.status, 'error', { message: error.key satisfies MessageKey });
    }
    const status = typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
    // A client error's own message is the framework's (a body too large…): passed through as it is.
    if (status < 500) return page(request, reply, status, 'error', error.validation ? { message: 'oauth.malformed' satisfies MessageKey } : { text: error.message });
    if (isDatabaseUnavailable(error)) {
      request.log.warn({ ...errorPlace(request), status: 503 }, 'authorization page: database unavailable');
      return page(request, reply.header('retry-after', '5'), 503, 'error', { message: 'oauth.unavailable' satisfies MessageKey });
    }
    // As the API logs a 5xx (platform/errors.ts): method, route, and a database error's code only.
    logServerError(request, error, 'authorization endpoint error');
    return page(request, reply, 500, 'error', { message: 'oauth.failed' satisfies MessageKey });
  });

  const pageResponses = { 200: HtmlPage, 302: Redirect, 400: HtmlPage };
  app.addHook('onRoute', documentClientErrors({ badRequest: HtmlPage, uriTooLong: HtmlPage, unsupportedMediaType: HtmlPage }));

  app.get('/oauth/authorize', {
    schema: {
      tags, summary: 'Authorization endpoint (code flow, PKCE S256): sign-in page',
      description: 'Shows the sign-in page, or for a signed-in session the consent page or the redirect with the code. An unknown client or an unregistered redirect URI shows an error page (400) and never redirects; other errors redirect with `error` (RFC 6749 §4.1.2.1).',
      querystring: AuthorizationQuerySchema, response: pageResponses,
    },
  }, async (request, reply) => {
    const pending = await authorize.validateRequest(request.query);
    let session = await sessions.load(sessionIdOf(request), request.ip);
    if (session) {
      session.pending = pending;
      await sessions.save(session);
    } else {
      session = await sessions.create(pending);
    }
    setSessionCookie(request, reply, session);
    if (session.userLogin) return proceed(request, reply, session, await authorize.afterSignIn(pending, session.userLogin));
    return page(request, reply, 200, 'sign-in', { csrf: session.csrfToken, requestId: pending.requestId, clientId: pending.clientId, error: null, username: '' });
  });

  app.post('/oauth/login', {
    schema: {
      tags, summary: 'Sign-in form of the authorization endpoint',
      description: 'On success: the consent page, or the redirect with the code when the client\'s scopes are auto-approved. Wrong credentials show the sign-in page again (400); failures count per (username, client IP) with the token endpoint\'s, and past the limit the page answers 429 with `Retry-After`. Without the page\'s `_csrf`: 403. A `request_id` that is not the session\'s pending request: 400.',
      body: SignInForm, response: { ...pageResponses, 403: HtmlPage, 429: HtmlPage },
    },
  }, async (request, reply) => {
    const session = await postedSession(request, request.body._csrf);
    if (!session.pending) throw new AuthorizationPageError(400, 'oauth.noSignIn');
    // Before the password: a sign-in page of a request since replaced in another tab would sign in to that other request.
    authorize.checkAnswersPending(session.pending, request.body.request_id);
    const login = await authorize.signIn(request.body.username ?? '', request.body.password ?? '', request.ip);
    if (!login) {
      request.log.info({ clientId: session.pending.clientId }, 'sign-in failed');
      return page(request, reply, 400, 'sign-in', {
        csrf: session.csrfToken, requestId: session.pending.requestId, clientId: session.pending.clientId,
        error: 'oauth.wrongPassword' satisfies MessageKey, username: request.body.username ?? '',
      });
    }
    const renewed = await sessions.renew({ ...session, userLogin: login, authenticatedAt: new Date(now()) });
    setSessionCookie(request, reply, renewed);
    return proceed(request, reply, renewed, await authorize.afterSignIn(session.pending, login));
  });

  app.post('/oauth/authorize', {
    schema: {
      tags, summary: 'Consent form of the authorization endpoint',
      description: 'Consent per scope, as the reference\'s approval store: with `user_oauth_approval=true`, each requested scope whose `scope.<name>` field is `true` is approved and the others are denied (both remembered for a month); the redirect to the client carries a code for exactly the approved scopes, or `error=access_denied` when none is approved. Any other `user_oauth_approval` denies every scope. Fields for scopes the request did not ask for are ignored. Without the page\'s `_csrf`: 403. A `request_id` that is not the session\'s pending request (a page since replaced in another tab): 400, nothing granted.',
      body: ConsentForm, response: { ...pageResponses, 403: HtmlPage },
    },
  }, async (request, reply) => {
    const session = await postedSession(request, request.body._csrf);
    const pending = session.pending;
    if (!session.userLogin || !pending) throw new AuthorizationPageError(400, 'oauth.noAuthorization');
    // The pending request stays as it is: its own page may still answer it.
    authorize.checkAnswersPending(pending, request.body.request_id);
    session.pending = null;
    await sessions.save(session);
    const location = await authorize.decide(pending, session.userLogin, {
      userOauthApproval: request.body.user_oauth_approval, scopes: scopeFieldsOf(request.body),
    });
    return reply.header('cache-control', 'no-store').redirect(location, 302);
  });
};
