/**
 * The account pages anyone may open (managementportal.md §13 account, §2.1): ask for a
 * password-reset link, set a password with the key of a mailed link (`/account/reset/finish?key=`,
 * where the creation and reset mails point), and activate an account (`/activate?key=`). Each is a
 * form with the session's CSRF token (an anonymous session when nobody is signed in), posting to
 * the account service the public API uses.
 *
 * Asking for a link says the same whether or not the address has an account, so the page does
 * not tell strangers which addresses are registered (the API answers 400 for an unknown one); it
 * counts in the same per-IP and per-address limit as the API.
 */
import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AccountService } from '../../account/service.js';
import { TooManyResetRequests, type RequestLimiter } from '../../account/limiter.js';
import { BadRequest, NotFound } from '../../errors.js';
import type { SessionStore } from '../../session/sessions.js';
import { context, ensureSession, render } from '../context.js';
import { formRefusal } from '../errors.js';

export interface PublicAccountPagesOptions {
  account: Pick<AccountService, 'requestPasswordReset' | 'finishPasswordReset' | 'activate'>;
  sessions: SessionStore;
  /** The API's limiter of reset requests (shared: the page and the API count together). */
  resetLimiter: RequestLimiter;
}

const SentQuery = Type.Object({ sent: Type.Optional(Type.String({ maxLength: 5 })) });
const KeyQuery = Type.Object({ key: Type.Optional(Type.String({ maxLength: 100 })) });
const ResetRequestForm = Type.Object({ _csrf: Type.String(), email: Type.String({ maxLength: 255 }) });
const ResetFinishForm = Type.Object({
  _csrf: Type.String(),
  key: Type.String({ maxLength: 100 }),
  newPassword: Type.String({ maxLength: 1024 }),
  confirmPassword: Type.String({ maxLength: 1024 }),
});
const ActivateForm = Type.Object({ _csrf: Type.String(), key: Type.String({ maxLength: 100 }) });
const schema = { hide: true };
const config = { publicPage: true };

export const publicAccountPages: FastifyPluginAsyncTypebox<PublicAccountPagesOptions> = async (app, { account, sessions, resetLimiter }) => {
  const requestPage = async (request: FastifyRequest, reply: FastifyReply, data: { email: string; error: string | null; done: boolean }, status = 200) => {
    await ensureSession(request, reply, sessions);
    return render(request, reply, 'account/reset-request', { title: context(request).t('account.resetRequestTitle'), ...data }, status);
  };
  const finishPage = async (request: FastifyRequest, reply: FastifyReply, key: string, error: string | null, status = 200) => {
    await ensureSession(request, reply, sessions);
    return render(request, reply, 'account/reset-finish', { title: context(request).t('account.resetFinishTitle'), key, error }, status);
  };
  const activatePage = async (request: FastifyRequest, reply: FastifyReply, key: string, error: string | null, status = 200) => {
    await ensureSession(request, reply, sessions);
    return render(request, reply, 'account/activate', { title: context(request).t('account.activateTitle'), key, error }, status);
  };

  app.get('/account/reset/request', { schema: { ...schema, querystring: SentQuery }, config }, async (request, reply) =>
    requestPage(request, reply, { email: '', error: null, done: request.query.sent === '1' }));

  app.post('/account/reset/request', { schema: { ...schema, body: ResetRequestForm }, config }, async (request, reply) => {
    const ui = context(request);
    const email = request.body.email.trim();
    try {
      resetLimiter.hit(request.ip, email);
      await account.requestPasswordReset(email, request.log);
    } catch (err) {
      if (err instanceof TooManyResetRequests) {
        reply.header('retry-after', String(err.retryAfterSeconds));
        return requestPage(request, reply, { email, error: ui.t('account.tooMany'), done: false }, 429);
      }
      // An unknown address looks like a known one (no list of accounts for strangers).
      if (!(err instanceof BadRequest && err.errorCode === 'error.emailNotRegistered')) throw err;
      request.log.info('password reset asked for an address without an activated account');
    }
    return reply.redirect(`${ui.base}/account/reset/request?sent=1`, 303);
  });

  app.get('/account/reset/finish', { schema: { ...schema, querystring: KeyQuery }, config }, async (request, reply) => {
    const key = request.query.key ?? '';
    return finishPage(request, reply, key, key === '' ? context(request).t('account.noKey') : null, key === '' ? 400 : 200);
  });

  app.post('/account/reset/finish', { schema: { ...schema, body: ResetFinishForm }, config }, async (request, reply) => {
    const ui = context(request);
    const { key, newPassword, confirmPassword } = request.body;
    if (newPassword !== confirmPassword) return finishPage(request, reply, key, ui.t('account.mismatch'), 400);
    try {
      await account.finishPasswordReset({ key, newPassword }, request.ip);
    } catch (err) {
      if (err instanceof BadRequest && err.errorCode === 'error.invalidResetKey') return finishPage(request, reply, key, ui.t('account.badKey'), 400);
      const refusal = formRefusal(err);
      if (refusal) return finishPage(request, reply, key, refusal.message, refusal.status);
      throw err;
    }
    request.log.info('password set with a reset key');
    return reply.redirect(`${ui.base}/account/reset/done`, 303);
  });

  app.get('/account/reset/done', { schema, config }, async (request, reply) => {
    const ui = context(request);
    return render(request, reply, 'account/done', { title: ui.t('account.resetDoneTitle'), message: ui.t('account.resetDone') });
  });

  app.get('/activate', { schema: { ...schema, querystring: KeyQuery }, config }, async (request, reply) => {
    const key = request.query.key ?? '';
    return activatePage(request, reply, key, key === '' ? context(request).t('account.noKey') : null, key === '' ? 400 : 200);
  });

  app.post('/activate', { schema: { ...schema, body: ActivateForm }, config }, async (request, reply) => {
    const ui = context(request);
    try {
      await account.activate(request.body.key);
    } catch (err) {
      if (err instanceof NotFound) return activatePage(request, reply, request.body.key, ui.t('account.activateBad'), 400);
      throw err;
    }
    return reply.redirect(`${ui.base}/activate/done`, 303);
  });

  app.get('/activate/done', { schema, config }, async (request, reply) => {
    const ui = context(request);
    return render(request, reply, 'account/done', { title: ui.t('account.activatedTitle'), message: ui.t('account.activated') });
  });
};
