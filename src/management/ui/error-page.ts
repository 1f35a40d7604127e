/**
 * The UI's error page where no page's scope answers (issue 31 item 11): an unknown path under the
 * site (404), a known page asked with a method it does not take (405, with `Allow`), and the
 * router's own errors (a malformed URL, an over-long path parameter). A browser asking for HTML
 * (`Accept: text/html`) on a path of the UI, not of the API (`MANAGEMENT_API_PATHS`), gets the UI's
 * error page with the message and a link back; anything else keeps the API's JSON body.
 *
 * These requests never reach the pages scope (no session cookie parser, no `reply.view`): the page
 * is rendered with an Eta of its own over the same templates. With a signed-in session (read from
 * the raw cookie by `signedIn`) it has the navbar of that user, as every other page, in the
 * language of the `lang` cookie, the account or the browser; without one (or when the session
 * cannot be read) it is the page of a visitor, in the cookie's or the browser's language.
 */
import { Eta } from 'eta';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { MpAuth } from '../security/principal.js';
import type { Session } from '../session/sessions.js';
import { LANGUAGE_COOKIE, languageOf, translator, type MessageKey } from '../i18n/translator.js';
import { VIEWS } from '../pages.js';
import { pageData, pageHeaders, type UiContext } from './context.js';

const eta = new Eta({ views: VIEWS, cache: true });

/** A cookie's value from the raw header (the scopes these pages answer in parse no cookies). */
function rawCookie(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** The context of a request no page's scope saw: not signed in, in the cookie's or the browser's language. */
export function bareContext(request: FastifyRequest, base: string): UiContext {
  const lang = languageOf({ cookie: rawCookie(request.headers.cookie, LANGUAGE_COOKIE), acceptLanguage: request.headers['accept-language'] });
  return { base, session: undefined, auth: undefined, lang, t: translator(lang) };
}

/** The signed-in session of a request and its user (`SessionAuth.signedInOf`); undefined for a visitor. */
export type SignedInOf = (request: FastifyRequest) => Promise<{ session: Session; auth: MpAuth } | undefined>;

/**
 * The context of a request no page's scope saw: the signed-in user's (so the page has its navbar)
 * when `signedIn` finds a session, else `bareContext`. A failure to read the session (the database
 * unreachable) is logged and gives the visitor's page: an error page must not fail itself.
 */
export async function errorContext(request: FastifyRequest, base: string, signedIn: SignedInOf | undefined): Promise<UiContext> {
  const bare = bareContext(request, base);
  if (!signedIn) return bare;
  let found: Awaited<ReturnType<SignedInOf>>;
  try {
    found = await signedIn(request);
  } catch (error) {
    request.log.warn({ code: (error as { code?: unknown }).code }, 'error page: session not read');
    return bare;
  }
  if (!found) return bare;
  const lang = languageOf({ cookie: rawCookie(request.headers.cookie, LANGUAGE_COOKIE), account: found.auth.langKey, acceptLanguage: request.headers['accept-language'] });
  return { base, session: found.session, auth: found.auth, lang, t: translator(lang) };
}

/** Renders `views/ui/error.eta` in the layout with `ui`, outside any page's scope. */
export function sendErrorPage(request: FastifyRequest, reply: FastifyReply, ui: UiContext, status: number, message: string): FastifyReply {
  const html = eta.render('ui/error', pageData(request, ui, { title: ui.t('error.title'), message, status }));
  return pageHeaders(request, reply.code(status)).send(html);
}

/** Whether a request is a browser's asking for a page: it accepts `text/html`. */
export const wantsHtml = (request: FastifyRequest): boolean => /\btext\/html\b/i.test(request.headers.accept ?? '');

/** Where the UI's routes are: which methods a path takes (for 405 and `Allow`). */
export interface PageRouteIndex {
  /** onRoute hook of the UI's scope. */
  add(route: { method: string | string[]; url: string }): void;
  /** The methods of the routes matching `path` (empty: no page there). */
  methodsOf(path: string): string[];
}

export function createPageRouteIndex(): PageRouteIndex {
  const routes: { pattern: RegExp; methods: string[] }[] = [];
  return {
    add(route) {
      const source = route.url.replace(/\/+$/, '').split('/').map((segment) =>
        segment.startsWith(':') ? '[^/]+' : segment === '*' ? '.*' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('/');
      const methods = [route.method].flat();
      routes.push({ pattern: new RegExp(`^${source}/?$`), methods: methods.includes('GET') ? [...methods, 'HEAD'] : methods });
    },
    methodsOf(path) {
      return [...new Set(routes.filter((r) => r.pattern.test(path)).flatMap((r) => r.methods))].sort();
    },
  };
}

export interface PageFallbackOptions {
  /** The site's path prefix. */
  base: string;
  /** The API's paths below `base` (never answered with a page). */
  apiPaths: readonly string[];
  routes: PageRouteIndex;
  /** Reads the request's signed-in session (the navbar of its user); without it every page is a visitor's. */
  signedIn?: SignedInOf;
}

const ROUTER_MESSAGES: Readonly<Record<string, MessageKey>> = { FST_ERR_BAD_URL: 'errorPage.badUrl', FST_ERR_MAX_PARAM_LENGTH: 'errorPage.414' };

export interface PageFallback {
  /** Whether a request is a browser's on a path of the UI (so its error is a page). */
  covers(request: FastifyRequest): boolean;
  /** The 404 page, or 405 with `Allow` when the path is a page taking other methods. */
  notFound(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply>;
  /** The page of a router error (`frameworkErrors`) with its status. */
  routerError(request: FastifyRequest, reply: FastifyReply, status: number, code: string): Promise<FastifyReply>;
}

export function createPageFallback({ base, apiPaths, routes, signedIn }: PageFallbackOptions): PageFallback {
  const prefix = base.replace(/\/+$/, '');
  const api = apiPaths.map((path) => `${prefix}${path}`);
  const pathOf = (request: FastifyRequest) => request.url.split('?')[0]!;
  return {
    covers(request) {
      const path = pathOf(request);
      if (!wantsHtml(request) || !(path === prefix || path.startsWith(`${prefix}/`))) return false;
      return !api.some((apiPath) => path === apiPath || path.startsWith(`${apiPath}/`) || path.startsWith(`${apiPath}.`));
    },
    async notFound(request, reply) {
      const ui = await errorContext(request, prefix, signedIn);
      const methods = routes.methodsOf(pathOf(request));
      request.log.info({ status: methods.length > 0 ? 405 : 404 }, 'admin page not found');
      if (methods.length === 0) return sendErrorPage(request, reply, ui, 404, ui.t('error.404'));
      return sendErrorPage(request, reply.header('allow', methods.join(', ')), ui, 405, ui.t('errorPage.405'));
    },
    async routerError(request, reply, status, code) {
      const ui = await errorContext(request, prefix, signedIn);
      return sendErrorPage(request, reply, ui, status, ui.t(ROUTER_MESSAGES[code] ?? (status >= 500 ? 'error.500' : 'error.400')));
    },
  };
}
