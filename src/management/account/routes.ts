/**
 * The account endpoints (managementportal.md §2.1). `accountRoutes` live in the authenticated
 * `/api` scope; `publicAccountRoutes` (activation and the password-reset pair) need no token, as
 * in the reference's `web.ignoring()` list.
 *
 * Raw bodies (`change_password`, `reset-activation/init`, `reset_password/init`) are `text/plain`,
 * which Fastify parses as a string; a JSON string is accepted as well.
 *
 * Reset keys and passwords never appear in replies or logs (the mail outbox logs the login only).
 */
import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ErrorVm, RadarErrorVm } from '../http/error-schemas.js';
import { principal } from '../security/authorization.js';
import { UserDto } from '../api/users/schemas.js';
import { TooManyResetRequests, type RequestLimiter } from './limiter.js';
import { AccountInput, ActivateQuery, EmailBody, KeyAndPassword, LoginBody, NoContent, PasswordBody } from './schemas.js';
import type { AccountService } from './service.js';

const tags = ['management: account'];
const badRequest = Type.Union([ErrorVm, RadarErrorVm]);
const secured = { 401: ErrorVm, 403: Type.Union([ErrorVm, RadarErrorVm]) };

export const accountRoutes: FastifyPluginAsyncTypebox<{ account: AccountService }> = async (app, { account }) => {
  app.get('/account', {
    schema: { tags, summary: 'The signed-in user (403 for a client-credentials token)', response: { 200: UserDto, ...secured } },
  }, async (req) => account.get(principal(req)));

  app.post('/account', {
    schema: {
      tags, summary: 'Update the signed-in user\'s names, e-mail and language', body: AccountInput,
      response: { 204: NoContent, 400: ErrorVm, ...secured, 409: RadarErrorVm },
    },
  }, async (req, reply) => {
    await account.update(principal(req), req.body);
    return reply.code(204).send(undefined as never);
  });

  app.post('/account/change_password', {
    schema: {
      tags, summary: 'Set the signed-in user\'s password (raw text body)', body: PasswordBody,
      response: { 204: NoContent, 400: badRequest, ...secured },
    },
  }, async (req, reply) => {
    await account.changePassword(principal(req), req.body);
    return reply.code(204).send(undefined as never);
  });

  app.post('/account/reset-activation/init', {
    schema: {
      tags, summary: 'Mail a new activation link to a user that is not activated (raw text body: the login)', body: LoginBody,
      response: { 204: NoContent, 400: badRequest, ...secured },
    },
  }, async (req, reply) => {
    await account.requestActivationReset(principal(req), req.body, req.log);
    return reply.code(204).send(undefined as never);
  });
};

/** `limiter`: the password-reset requests per client IP and per address. */
export const publicAccountRoutes: FastifyPluginAsyncTypebox<{ account: AccountService; limiter: RequestLimiter }> = async (app, { account, limiter }) => {
  app.get('/activate', {
    schema: {
      tags, summary: 'Activate an account with its activation key', querystring: ActivateQuery,
      response: { 200: NoContent, 400: ErrorVm, 404: RadarErrorVm },
    },
  }, async (req, reply) => {
    await account.activate(req.query.key);
    return reply.code(200).send(undefined as never);
  });

  app.post('/account/reset_password/init', {
    schema: {
      tags, summary: 'Mail a password-reset link to the activated user with this e-mail address (raw text body)', body: EmailBody,
      description: 'At most 5 requests a minute per client IP and per address (then 429 with Retry-After).',
      response: { 204: NoContent, 400: badRequest, 429: RadarErrorVm },
    },
  }, async (req, reply) => {
    try {
      limiter.hit(req.ip, req.body);
    } catch (err) {
      if (err instanceof TooManyResetRequests) reply.header('retry-after', String(err.retryAfterSeconds));
      throw err;
    }
    await account.requestPasswordReset(req.body, req.log);
    return reply.code(204).send(undefined as never);
  });

  app.post('/account/reset_password/finish', {
    schema: {
      tags, summary: 'Set a new password with the key from the e-mail link (activates the account)', body: KeyAndPassword,
      response: { 204: NoContent, 400: badRequest },
    },
  }, async (req, reply) => {
    await account.finishPasswordReset(req.body, req.ip);
    return reply.code(204).send(undefined as never);
  });
};
