/**
 * The session cookie as the pages (OAuth sign-in and consent, admin UI) read and set it: signed,
 * httpOnly, `SameSite=Lax`, `Secure` when the request came over TLS (as judged through
 * `TRUST_PROXY`), on the whole management domain's path, and without `Max-Age`: the server ends an
 * idle session (sessions.ts), the browser forgets the cookie when it closes.
 * Needs `@fastify/cookie` registered with the session secret in the calling scope.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { SESSION_COOKIE, type Session } from './sessions.js';

/** The session id of a request's cookie; undefined without one or when its signature fails. */
export function sessionIdOf(request: FastifyRequest): string | undefined {
  const raw = request.cookies[SESSION_COOKIE];
  if (!raw) return undefined;
  const unsigned = request.unsignCookie(raw);
  return unsigned.valid && unsigned.value ? unsigned.value : undefined;
}

/** The attributes every session cookie carries, the one that sets it and the one that clears it. */
function sessionCookieAttributes(request: FastifyRequest, path: string) {
  return { httpOnly: true, sameSite: 'lax', secure: request.protocol === 'https', path } as const;
}

export function setSessionCookie(request: FastifyRequest, reply: FastifyReply, session: Session, path: string): void {
  reply.setCookie(SESSION_COOKIE, session.id, { signed: true, ...sessionCookieAttributes(request, path) });
}

export function clearSessionCookie(request: FastifyRequest, reply: FastifyReply, path: string): void {
  reply.clearCookie(SESSION_COOKIE, sessionCookieAttributes(request, path));
}
