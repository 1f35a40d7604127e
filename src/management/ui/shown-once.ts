/**
 * A value shown once, after a redirect (issue 31 item 10: post → redirect → show once), such as an
 * OAuth client's generated secret. The POST seals it with AES-256-GCM, bound to the session, into
 * a short-lived httpOnly cookie on the showing page's path; that page opens it and clears the
 * cookie in the same answer, so a reload finds nothing and re-submits nothing. No instance keeps
 * the value (any instance sharing the session secret can show it), and the browser's cookie store
 * holds only ciphertext, for at most `TTL_MS`.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

const TTL_MS = 5 * 60_000;
const IV_BYTES = 12;

export interface ShownOnce {
  /** Seals `value` for the page at `path`, for this session only. */
  keep(request: FastifyRequest, reply: FastifyReply, path: string, sessionId: string, value: string): void;
  /** The value kept for the page at `path` and this session, once: the cookie is cleared either way. */
  take(request: FastifyRequest, reply: FastifyReply, path: string, sessionId: string): string | undefined;
}

export function createShownOnce(secret: string, now: () => number, name = 'shown-once'): ShownOnce {
  // A key of its own, derived from the session secret: the cookie signature's key is never an encryption key.
  const key = Buffer.from(hkdfSync('sha256', secret, '', 'radar admin UI: shown once', 32));
  const attributes = (request: FastifyRequest, path: string) =>
    ({ httpOnly: true, sameSite: 'strict', secure: request.protocol === 'https', path }) as const;

  return {
    keep(request, reply, path, sessionId, value) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const sealed = Buffer.concat([cipher.update(JSON.stringify({ s: sessionId, v: value, e: now() + TTL_MS }), 'utf8'), cipher.final()]);
      const token = [iv, sealed, cipher.getAuthTag()].map((b) => b.toString('base64url')).join('.');
      reply.setCookie(name, token, { ...attributes(request, path), maxAge: TTL_MS / 1000 });
    },

    take(request, reply, path, sessionId) {
      const token = request.cookies[name];
      if (token === undefined) return undefined;
      reply.clearCookie(name, attributes(request, path));
      const [iv, sealed, tag] = token.split('.').map((part) => Buffer.from(part, 'base64url'));
      if (!iv || !sealed || !tag || iv.length !== IV_BYTES || tag.length !== 16) return undefined;
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, iv);
        decipher.setAuthTag(tag);
        const kept = JSON.parse(Buffer.concat([decipher.update(sealed), decipher.final()]).toString('utf8')) as { s: string; v: string; e: number };
        return kept.s === sessionId && kept.e > now() ? kept.v : undefined;
      } catch {
        return undefined; // forged, truncated or from another secret
      }
    },
  };
}
