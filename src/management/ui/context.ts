/**
 * What every admin UI request carries and how a page is answered.
 *
 * `uiGuard` (a preValidation hook of the UI scope, after the form body is parsed) loads the
 * session of the request's cookie and its user's principal, the same one the API gets for a
 * signed-in session (security/session-auth.ts), into `request.mpAuth`: so a page calls the API's
 * services with `actorOf(request)` and the same permission checks apply. Then:
 * - a page that is not public needs a signed-in user with a role other than participant;
 *   without one, a GET is redirected to `/login?next=…` and anything else is refused (403);
 * - every POST must carry the session's CSRF token in the form field `_csrf` (403 otherwise),
 *   public forms included (sign-in, password reset): they get an anonymous session for it.
 */
import type {} from '@fastify/view';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '../../platform/errors.js';
import { redactedUrl } from '../../platform/logging.js';
import type { MpAuth } from '../security/principal.js';
import { mayUseAdminUi, type SessionAuth } from '../security/session-auth.js';
import { sessionIdOf, setSessionCookie } from '../session/cookie.js';
import type { Session, SessionStore } from '../session/sessions.js';
import { navOf } from './nav.js';
import { LANGUAGE_COOKIE, LANGUAGE_NAMES, languageOf, translator, type MessageKey, type Translate } from '../i18n/translator.js';

export interface UiContext {
  /** The site's path prefix (`MANAGEMENTPORTAL_CONTEXT_PATH`): every link and form starts with it. */
  base: string;
  session: Session | undefined;
  /** The signed-in user's principal (also `request.mpAuth`), when signed in and allowed. */
  auth: MpAuth | undefined;
  lang: string;
  t: Translate;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The admin UI's request context (management/ui); null outside the UI scope. */
    ui: UiContext | null;
  }
  interface FastifyContextConfig {
    /** An admin UI page anyone may open (sign-in, password reset, activation, content). */
    publicPage?: boolean;
  }
}

/** 403: a POST without the session's CSRF token. */
export class CsrfRejected extends DomainError {
  constructor() { super(403, 'error.csrf'); this.name = 'CsrfRejected'; }
}

export function context(request: FastifyRequest): UiContext {
  if (!request.ui) throw new Error('admin UI page outside the UI scope');
  return request.ui;
}

/**
 * Where to go back to after sign-in: a path of this site only (no scheme, host, `//` or `\`), else
 * the home page. Stops an open redirect through `/login?next=`.
 *
 * The path is checked after normalisation (`.`/`..` segments, `%2e`), and once more decoded: with
 * the management domain at the root (`MANAGEMENTPORTAL_CONTEXT_PATH=/`, an empty base) every path
 * starts with the home page `/`, so `/.//evil.example` or `/x/%2e%2e//evil.example` would otherwise
 * normalise to `//evil.example`, which a browser reads as another host.
 */
export function safeNext(next: unknown, base: string): string {
  const home = `${base}/`;
  if (typeof next !== 'string' || next.length > 2048 || !next.startsWith(home) && next !== base) return home;
  if (/[\\\u0000-\u001f\u007f]/.test(next) || next.startsWith('//')) return home;
  const url = new URL(next, 'http://site.invalid');
  if (url.origin !== 'http://site.invalid' || !(url.pathname === base || url.pathname.startsWith(home))) return home;
  if (leavesSite(url.pathname)) return home;
  return url.pathname + url.search;
}

/** A path a browser, or a proxy that decodes once, could read as another host: `//…` or `/\…`. */
function leavesSite(path: string): boolean {
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    return true;
  }
  return [path, decoded].some((p) => /^\/[/\\]/.test(p.replace(/[\t\n\r]/g, '')));
}

export interface UiGuardDeps {
  sessions: SessionStore;
  sessionAuth: Pick<SessionAuth, 'principalOfUser'>;
  base: string;
}

export function uiGuard(deps: UiGuardDeps) {
  return async function guard(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const session = await deps.sessions.load(sessionIdOf(request), request.ip);
    let auth: MpAuth | undefined;
    if (session?.userLogin) {
      const principal = await deps.sessionAuth.principalOfUser(session.userLogin);
      if (principal && mayUseAdminUi(principal)) auth = { ...principal, sessionId: session.id, address: request.ip };
    }
    request.mpAuth = auth ?? null;
    const lang = languageOf({ cookie: request.cookies[LANGUAGE_COOKIE], account: auth?.langKey, acceptLanguage: request.headers['accept-language'] });
    request.ui = { base: deps.base, session, auth, lang, t: translator(lang) };

    const publicPage = request.routeOptions.config.publicPage === true;
    if (request.method === 'POST') {
      const csrf = (request.body as { _csrf?: unknown } | undefined)?._csrf;
      if (!session || typeof csrf !== 'string' || !deps.sessions.csrfMatches(session, csrf)) throw new CsrfRejected();
    }
    if (!publicPage && !auth) {
      if (request.method !== 'GET' && request.method !== 'HEAD') throw new CsrfRejected();
      const next = safeNext(request.url, deps.base);
      return reply.redirect(`${deps.base}/login?next=${encodeURIComponent(next)}`, 303);
    }
  };
}

/** A session for a form of a public page (its CSRF token); the signed-in one when there is one. */
export async function ensureSession(request: FastifyRequest, reply: FastifyReply, sessions: SessionStore): Promise<Session> {
  const ui = context(request);
  if (ui.session) return ui.session;
  ui.session = await sessions.create(null);
  setSessionCookie(request, reply, ui.session, `${ui.base}/`);
  return ui.session;
}

const CSP = [
  "default-src 'none'", "script-src 'self'", "style-src 'self'", "img-src 'self' data:", "form-action 'self'",
  "frame-ancestors 'none'", "base-uri 'none'", "connect-src 'self'",
].join('; ');

/** Formats an instant for a page: `<time datetime>` in UTC, the zone named (ui.js shows it in the browser's zone). */
export function timeHtml(value: Date | string | number | null | undefined, zone: string): string {
  if (value === null || value === undefined || value === '') return '';
  const date = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(date.getTime())) return '';
  const iso = date.toISOString();
  return `<time datetime="${iso}">${iso.slice(0, 16).replace('T', ' ')} ${zone}</time>`;
}

export interface PageData {
  /** The page's `<title>` and its one `<h1>`. */
  title: string;
  [key: string]: unknown;
}

/**
 * Renders `views/ui/<template>.eta` in the layout with the context every page needs: `t`, `base`,
 * `csrf` (for forms), `auth`, `time`, `nav` (the navbar's links: the pages the user may open, nav.ts). HTML pages are never cached; the platform's headers (http-security.ts) deny framing.
 */
export function render(request: FastifyRequest, reply: FastifyReply, template: string, data: PageData, status = 200) {
  const ui = context(request);
  return pageHeaders(request, reply.code(status)).view(`ui/${template}`, pageData(request, ui, data));
}

/** The headers of every HTML page of the UI (an error page answered outside a page's scope included). */
export function pageHeaders(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return reply
    .header('content-type', 'text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    // A page whose URL holds a parameter the log redacts (the mailed `key` of the reset and
    // activation pages, `token`, `code`…), the error page included: no `Referer` at all, not even to
    // this site, whose request log would otherwise record it with every file and form of the page.
    .header('referrer-policy', redactedUrl(request.url) !== request.url ? 'no-referrer' : 'same-origin')
    .header('content-security-policy', CSP);
}

/** What a template gets besides its own data: the context every page needs (layout.eta). */
export function pageData(request: FastifyRequest, ui: UiContext, data: PageData): Record<string, unknown> {
  return {
    ...data,
    t: ui.t, lang: ui.lang, base: ui.base, csrf: ui.session?.csrfToken ?? '', auth: ui.auth, nav: navOf(ui.auth, ui.base),
    time: (value: Date | string | number | null | undefined) => timeHtml(value, ui.t('time.zone')),
    languageSwitch: languageLinks(request, ui),
  };
}

/**
 * The navbar's language switch: a link per language to `/language`, back to this page (a GET's
 * own URL; after a form post, which a GET of its URL may not answer, the home page).
 */
function languageLinks(request: FastifyRequest, ui: UiContext): { lang: string; name: string; href: string; current: boolean }[] {
  const back = request.method === 'GET' ? safeNext(request.url, ui.base) : `${ui.base}/`;
  return Object.entries(LANGUAGE_NAMES).map(([lang, name]) => ({
    lang, name, current: lang === ui.lang,
    href: `${ui.base}/language?lang=${lang}&return=${encodeURIComponent(back)}`,
  }));
}

/** A message key of the catalogue, for errors pages show. */
export type { MessageKey };
