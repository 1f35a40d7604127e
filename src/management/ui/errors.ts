/**
 * The admin UI's error pages: what the API answers as a JSON error, a page answers as an HTML page
 * with the same status (403 when denied, 404 for an unknown entity, 400 for a bad form, 413 for a
 * body over the limit, 415 for one of a kind no page takes, 429 with `Retry-After` for too many
 * failed sign-ins, 503 with `Retry-After` while the database is unreachable), with the message and
 * a link back. A 5xx is logged and shows no detail. An error raised before the UI's guard ran (the
 * body's parser, the guard's own database read) gets the page too: with the navbar of the signed-in
 * user when its session can be read (`signedIn`), without it otherwise (the database unreachable).
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { isDatabaseUnavailable } from '../../platform/database.js';
import { DomainError, errorPlace, logServerError } from '../../platform/errors.js';
import { TooManyFailedAttempts } from '../oauth/limiter.js';
import { CsrfRejected, render } from './context.js';
import { errorContext, sendErrorPage, type SignedInOf } from './error-page.js';
import type { MessageKey } from '../i18n/translator.js';

const GENERIC: Readonly<Record<number, MessageKey>> = {
  400: 'error.400', 403: 'error.403', 404: 'error.404', 405: 'errorPage.405', 413: 'errorPage.413', 414: 'errorPage.414', 415: 'errorPage.415',
};

/** A refusal whose message is the page's own (already in the page's language), shown as is. */
export class PageRefused extends DomainError {
  constructor(status: number, message: string) { super(status, message); this.name = 'PageRefused'; }
}

export function uiErrorHandler(base: string, signedIn?: SignedInOf) {
  return async function handleUiError(error: FastifyError & { status?: number }, request: FastifyRequest, reply: FastifyReply) {
    if (error instanceof TooManyFailedAttempts) reply.header('retry-after', String(error.retryAfterSeconds));
    const raw = error.status ?? error.statusCode;
    const unavailable = isDatabaseUnavailable(error);
    const status = unavailable ? 503 : typeof raw === 'number' && raw >= 400 && raw < 500 ? raw : 500;
    // The database down or restarting is an outage, not a bug (as in the API: platform/errors.ts).
    if (unavailable) reply.header('retry-after', '5');
    if (unavailable) request.log.warn({ ...errorPlace(request), status }, 'admin page: database unavailable');
    // As the API logs a 5xx (platform/errors.ts): method, route, and a database error's code only.
    else if (status >= 500) logServerError(request, error, 'admin page error');
    else request.log.info({ status }, 'admin page refused');
    // Before the guard no session was read: read it now (not while the database is unreachable).
    const ui = request.ui ?? await errorContext(request, base, unavailable ? undefined : signedIn);
    const message = error instanceof CsrfRejected ? ui.t('error.csrf')
      : error instanceof TooManyFailedAttempts ? ui.t('login.limited')
        : unavailable ? ui.t('error.503')
          : status >= 500 ? ui.t('error.500')
            : error instanceof PageRefused ? error.message
              : status === 403 ? ui.t('error.403')
                : error.validation ? ui.t('error.400')
                  // Fastify's own errors (the body's parser: FST_ERR_CTP_*) in the page's language.
                  : error.code?.startsWith('FST_') || !error.message ? ui.t(GENERIC[status] ?? 'error.400')
                    : error.message;
    // Before the guard (a body refused by its parser) the pages' `reply.view` is not reached either.
    if (!request.ui) return sendErrorPage(request, reply, ui, status, message);
    return render(request, reply, 'error', { title: ui.t('error.title'), message, status }, status);
  };
}

/**
 * The message a form shows again in its alert when a service refuses what was typed (400, 404,
 * 409: a taken name, a weak password, an unknown key); undefined for anything else (403 and 5xx
 * go to the error page).
 */
export function formRefusal(error: unknown): { message: string; status: number } | undefined {
  if (!(error instanceof DomainError) || error.status === 403 || error.status < 400 || error.status >= 500) return undefined;
  return { message: error.message, status: error.status === 404 ? 400 : error.status };
}
