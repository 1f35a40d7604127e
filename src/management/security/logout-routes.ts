/**
 * `POST /api/logout`: the admin UI's sign-out (the reference's Spring `LogoutFilter`, 200). Ends
 * the signed-in session of the request's cookie and clears the cookie. Needs the session's CSRF
 * token in `X-CSRF-Token` or `X-XSRF-TOKEN` like every unsafe request with the session (so no
 * other site can sign the user out); a request without a live session gets 200 too.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ErrorVm } from '../http/error-schemas.js';
import { SESSION_COOKIE } from '../session/sessions.js';
import type { SessionAuth } from './session-auth.js';

export interface LogoutRoutesOptions {
  session: SessionAuth;
  /** The session cookie's path (the management domain's prefix with a trailing slash). */
  cookiePath: string;
}

export const logoutRoutes: FastifyPluginAsyncTypebox<LogoutRoutesOptions> = async (app, { session, cookiePath }) => {
  app.post('/logout', {
    schema: {
      tags: ['management: account'], summary: 'Sign out: ends the signed-in session of the admin UI',
      description: 'With the session cookie and its CSRF token (`X-CSRF-Token`): the session ends and the cookie is cleared. Without a live session: 200 as well. The CSRF token missing or wrong: 403.',
      response: { 200: Type.Null({ description: 'Empty body' }), 403: ErrorVm },
    },
  }, async (request, reply) => {
    await session.signOut(request);
    // `Secure` over TLS, like the cookie it clears (session/cookie.ts); this scope has no @fastify/cookie.
    const expired = `${SESSION_COOKIE}=; Path=${cookiePath}; Max-Age=0; HttpOnly; SameSite=Lax${request.protocol === 'https' ? '; Secure' : ''}`;
    return reply.header('set-cookie', expired).header('cache-control', 'no-store').send(undefined as never);
  });
};
