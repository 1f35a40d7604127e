/**
 * `/login` and "Sign out": signing in to the admin pages with a user name and password, not tied to
 * an OAuth authorization request. The session is the one store the OAuth pages use; signing in
 * gives it a new id and CSRF token (no session fixation). Failed sign-ins count in the token
 * endpoint's limiter (per name and address, and per address: 429 with `Retry-After`). Only the
 * admin and users with a role other than a participant's may sign in here; anyone else gets the
 * wrong-password answer (issue 28 item 5), which names the app as the participants' way in.
 */
import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { PasswordSignIn } from '../oauth/sign-in.js';
import { mayUseAdminUi, type SessionAuth } from '../security/session-auth.js';
import { clearSessionCookie, setSessionCookie } from '../session/cookie.js';
import type { SessionStore } from '../session/sessions.js';
import { context, ensureSession, render, safeNext } from './context.js';

export interface SignInRoutesOptions {
  signIn: PasswordSignIn;
  sessions: SessionStore;
  sessionAuth: Pick<SessionAuth, 'principalOfUser'>;
  now: () => number;
}

const LoginQuery = Type.Object({ next: Type.Optional(Type.String({ maxLength: 2048 })) });
const LoginForm = Type.Object({
  _csrf: Type.String(),
  username: Type.String({ maxLength: 256 }),
  password: Type.String({ maxLength: 1024 }),
  next: Type.Optional(Type.String({ maxLength: 2048 })),
});
const CsrfForm = Type.Object({ _csrf: Type.String() });
const schema = { hide: true };

export const signInRoutes: FastifyPluginAsyncTypebox<SignInRoutesOptions> = async (app, { signIn, sessions, sessionAuth, now }) => {
  app.get('/login', { schema: { ...schema, querystring: LoginQuery }, config: { publicPage: true } }, async (request, reply) => {
    const ui = context(request);
    const next = safeNext(request.query.next, ui.base);
    if (ui.auth) return reply.redirect(next, 303);
    await ensureSession(request, reply, sessions);
    return render(request, reply, 'login', { title: ui.t('login.title'), next, username: '', error: null });
  });

  app.post('/login', { schema: { ...schema, body: LoginForm }, config: { publicPage: true } }, async (request, reply) => {
    const ui = context(request);
    const session = ui.session!;
    const { username, password } = request.body;
    const next = safeNext(request.body.next, ui.base);
    const again = (error: string) => render(request, reply, 'login', { title: ui.t('login.title'), next, username, error }, 400);
    // Only admin pages users are admitted; anyone else gets the wrong-password answer, so the page
    // tells nobody that a participant's password is right. Not counted towards the limits (the
    // password was right), but audited as a failure.
    const login = await signIn(username, password, request.ip, async (name) => {
      const auth = await sessionAuth.principalOfUser(name);
      return auth !== undefined && auth !== null && mayUseAdminUi(auth);
    });
    if (!login) {
      request.log.info('admin sign-in failed');
      return again(ui.t('login.failed'));
    }
    const renewed = await sessions.renew({ ...session, userLogin: login, authenticatedAt: new Date(now()), pending: null });
    setSessionCookie(request, reply, renewed, `${ui.base}/`);
    request.log.info({ login }, 'admin signed in');
    return reply.redirect(next, 303);
  });

  app.post('/logout', { schema: { ...schema, body: CsrfForm } }, async (request, reply) => {
    const ui = context(request);
    await sessions.destroy(ui.session!, request.ip);
    clearSessionCookie(request, reply, `${ui.base}/`);
    return reply.redirect(`${ui.base}/login`, 303);
  });
};
