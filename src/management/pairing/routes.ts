/**
 * App pairing (managementportal.md §2.10, §5). `pairingRoutes` live in the authenticated `/api`
 * scope; `publicMetaTokenRoutes` is the app's read of its meta-token, which needs no token (the
 * reference's `web.ignoring()` of `GET /api/meta-token/**`) and is rate-limited per client IP.
 *
 * `GET /api/oauth-clients/pair` shares its prefix with `GET /api/oauth-clients/:clientId`; the
 * router prefers the static segment, so `pair` is never taken for a client id.
 */
import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { ErrorVm, RadarErrorVm } from '../http/error-schemas.js';
import { authorize, principal, requireScope } from '../security/authorization.js';
import { TooManyMetaTokenReads, type MetaTokenReadLimiter } from './limiter.js';
import { ClientPairInfoDto, PairQuery, TokenDto, TokenNameParams } from './schemas.js';
import type { PairingCaller, PairingService } from './service.js';

const tags = ['management: pairing'];
const NoContent = Type.Null({ description: 'No content' });

const callerOf = (req: FastifyRequest): PairingCaller => {
  const auth = principal(req);
  return {
    // A client-credentials token names no user (radar-auth `isClientCredentials`).
    userName: auth.clientCredentials ? undefined : auth.userName,
    address: req.ip,
    check: (permission, entity) => { authorize(req, permission, entity); },
  };
};

export const pairingRoutes: FastifyPluginAsyncTypebox<{ pairing: PairingService }> = async (app, { pairing }) => {
  app.get('/oauth-clients/pair', {
    schema: {
      tags, summary: 'Create a meta-token that pairs an app client with a subject (the QR code of the pairing dialog)',
      description: 'Needs a signed-in user with SUBJECT.UPDATE on the subject. Audited as PAIR_CLIENT_REQUEST. '
        + 'A GET that creates a token: authenticated by the admin UI\'s session cookie rather than a bearer token, it needs the session\'s CSRF token in `X-CSRF-Token` or `X-XSRF-TOKEN` (403 without).',
      querystring: PairQuery,
      response: { 200: ClientPairInfoDto, 400: Type.Union([ErrorVm, RadarErrorVm]), 401: ErrorVm, 403: ErrorVm, 404: RadarErrorVm },
    },
    // Kept from the reference: a GET (the admin UI and its scripts call it so); the cookie alone is not enough (security/session-auth.ts).
    config: { changesState: true },
    preHandler: requireScope('SUBJECT.UPDATE'),
  }, async (req) => pairing.pair(callerOf(req), req.query));

  app.delete('/meta-token/:tokenName', {
    schema: {
      tags, summary: 'Delete a meta-token', params: TokenNameParams,
      response: { 204: NoContent, 401: ErrorVm, 403: ErrorVm, 404: RadarErrorVm },
    },
  }, async (req, reply) => {
    await pairing.remove(callerOf(req), req.params.tokenName);
    return reply.code(204).send(undefined as never);
  });
};

/** `limiter`: the reads per client IP (MANAGEMENTPORTAL_META_TOKEN_READS_PER_MINUTE). */
export const publicMetaTokenRoutes: FastifyPluginAsyncTypebox<{ pairing: PairingService; limiter: MetaTokenReadLimiter }> = async (app, { pairing, limiter }) => {
  app.get('/meta-token/:tokenName', {
    schema: {
      tags, summary: 'Read a meta-token: a refresh token for the paired app (once, unless persistent)',
      description: 'No authentication. A one-time token is read once (410 afterwards), a persistent one until it expires. '
        + 'Every read counts against MANAGEMENTPORTAL_META_TOKEN_READS_PER_MINUTE per client IP (then 429 with Retry-After).',
      params: TokenNameParams,
      response: { 200: TokenDto, 400: Type.Union([ErrorVm, RadarErrorVm]), 404: RadarErrorVm, 410: RadarErrorVm, 429: RadarErrorVm },
    },
  }, async (req, reply) => {
    // The body is a credential: no cache may keep it.
    reply.header('cache-control', 'no-store');
    try {
      limiter.hit(req.ip);
    } catch (err) {
      if (err instanceof TooManyMetaTokenReads) reply.header('retry-after', String(err.retryAfterSeconds));
      throw err;
    }
    return pairing.read(req.params.tokenName, req.ip);
  });
};
