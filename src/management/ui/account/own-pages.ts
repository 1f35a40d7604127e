/**
 * The signed-in user's own account (managementportal.md §13 account): `/account/settings` (names,
 * e-mail, language), `/account/password` (the current password first, checked as a sign-in is, so
 * failures count in the same limiter), and `/account/approvals` (the OAuth consents remembered
 * for the user: client, scopes, expiry, "Revoke" each).
 */
import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AccountService } from '../../account/service.js';
import type { PasswordSignIn } from '../../oauth/sign-in.js';
import type { ApprovalService } from '../../oauth/authorize/approvals.js';
import { principal } from '../../security/authorization.js';
import { context, render } from '../context.js';
import { formRefusal } from '../errors.js';
import { LANGUAGES, type MessageKey } from '../../i18n/translator.js';

export interface OwnAccountPagesOptions {
  account: Pick<AccountService, 'get' | 'update' | 'changePassword'>;
  signIn: PasswordSignIn;
  approvals: ApprovalService;
}

const EMAIL = /^[^\s@]+@[^\s@]+$/;
const SavedQuery = Type.Object({ saved: Type.Optional(Type.String({ maxLength: 5 })) });
const SettingsForm = Type.Object({
  _csrf: Type.String(),
  firstName: Type.Optional(Type.String({ maxLength: 200 })),
  lastName: Type.Optional(Type.String({ maxLength: 200 })),
  email: Type.Optional(Type.String({ maxLength: 200 })),
  langKey: Type.Optional(Type.String({ maxLength: 10 })),
});
const PasswordForm = Type.Object({
  _csrf: Type.String(),
  currentPassword: Type.String({ maxLength: 1024 }),
  newPassword: Type.String({ maxLength: 1024 }),
  confirmPassword: Type.String({ maxLength: 1024 }),
});
const RevokeForm = Type.Object({ _csrf: Type.String(), clientId: Type.String({ minLength: 1, maxLength: 255 }) });
const schema = { hide: true };

interface Settings { firstName: string; lastName: string; email: string; langKey: string }

export const ownAccountPages: FastifyPluginAsyncTypebox<OwnAccountPagesOptions> = async (app, { account, signIn, approvals }) => {
  const settingsPage = (request: FastifyRequest, reply: FastifyReply, values: Settings, notice: string | null, error: string | null, status = 200) =>
    render(request, reply, 'account/settings', {
      title: context(request).t('account.settingsTitle'), values, languages: LANGUAGES, notice, error, current: 'settings',
    }, status);
  const passwordPage = (request: FastifyRequest, reply: FastifyReply, notice: string | null, error: string | null, status = 200) =>
    render(request, reply, 'account/password', { title: context(request).t('account.passwordTitle'), notice, error, current: 'password' }, status);

  app.get('/account/settings', { schema: { ...schema, querystring: SavedQuery } }, async (request, reply) => {
    const user = await account.get(principal(request));
    const values = { firstName: user.firstName ?? '', lastName: user.lastName ?? '', email: user.email ?? '', langKey: user.langKey ?? 'en' };
    return settingsPage(request, reply, values, request.query.saved === '1' ? context(request).t('account.saved') : null, null);
  });

  app.post('/account/settings', { schema: { ...schema, body: SettingsForm } }, async (request, reply) => {
    const ui = context(request);
    const { body } = request;
    const values = { firstName: (body.firstName ?? '').trim(), lastName: (body.lastName ?? '').trim(), email: (body.email ?? '').trim(), langKey: body.langKey ?? 'en' };
    const problem: MessageKey | undefined = values.email !== '' && (!EMAIL.test(values.email) || values.email.length < 5 || values.email.length > 100)
      ? 'account.badEmail' : values.firstName.length > 50 || values.lastName.length > 50 ? 'account.badName' : undefined;
    if (problem) return settingsPage(request, reply, values, null, ui.t(problem), 400);
    try {
      await account.update(principal(request), {
        firstName: values.firstName || null, lastName: values.lastName || null, email: values.email || null,
        langKey: LANGUAGES.includes(values.langKey) ? values.langKey : 'en',
      });
    } catch (err) {
      const refusal = formRefusal(err);
      if (refusal) return settingsPage(request, reply, values, null, refusal.message, refusal.status);
      throw err;
    }
    return reply.redirect(`${ui.base}/account/settings?saved=1`, 303);
  });

  app.get('/account/password', { schema: { ...schema, querystring: SavedQuery } }, async (request, reply) =>
    passwordPage(request, reply, request.query.saved === '1' ? context(request).t('account.passwordChanged') : null, null));

  app.post('/account/password', { schema: { ...schema, body: PasswordForm } }, async (request, reply) => {
    const ui = context(request);
    const auth = principal(request);
    const { currentPassword, newPassword, confirmPassword } = request.body;
    if (newPassword !== confirmPassword) return passwordPage(request, reply, null, ui.t('account.mismatch'), 400);
    if (!auth.userName || !await signIn(auth.userName, currentPassword, request.ip)) {
      request.log.info('password change refused: wrong current password');
      return passwordPage(request, reply, null, ui.t('account.wrongPassword'), 400);
    }
    try {
      await account.changePassword(auth, newPassword);
    } catch (err) {
      const refusal = formRefusal(err);
      if (refusal) return passwordPage(request, reply, null, refusal.message, refusal.status);
      throw err;
    }
    request.log.info({ login: auth.userName }, 'password changed in the admin UI');
    return reply.redirect(`${ui.base}/account/password?saved=1`, 303);
  });

  app.get('/account/approvals', { schema }, async (request, reply) => {
    const ui = context(request);
    const login = loginOf(request);
    const list = login ? await approvals.list(login) : [];
    return render(request, reply, 'account/approvals', { title: ui.t('account.approvalsTitle'), approvals: list, current: 'approvals' });
  });

  app.post('/account/approvals/revoke', { schema: { ...schema, body: RevokeForm } }, async (request, reply) => {
    const login = loginOf(request);
    if (login) await approvals.revoke(login, request.body.clientId);
    request.log.info({ clientId: request.body.clientId }, 'remembered consent revoked');
    return reply.redirect(`${context(request).base}/account/approvals`, 303);
  });
};

/** The signed-in user's login (a session is always a user's, never a client's). */
const loginOf = (request: FastifyRequest): string | undefined => principal(request).userName;
