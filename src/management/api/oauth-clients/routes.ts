/**
 * `/api/oauth-clients` (managementportal.md §2.10). Registered inside the API scope, whose hook
 * has authenticated the bearer token. Reading (list and one) needs the scope `OAUTHCLIENTS.READ`
 * held by a role (project admins list clients in the pairing dialog; the reference refused them
 * one client, §15.6); changes are global permissions (SYS_ADMIN or client credentials).
 */
import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { actorOf, requireGlobalPermission, requireScope } from '../../security/authorization.js';
import { ClientDetailsDto, ClientDetailsInput, ClientIdParams } from './schemas.js';
import { ErrorVm, RadarErrorVm } from '../../http/error-schemas.js';
import type { OAuthClientService } from './service.js';

const tags = ['management: oauth-clients'];
const ALERT = 'x-managementportalapp-alert';
const PARAMS = 'x-managementportalapp-params';
const common = { 400: ErrorVm, 401: ErrorVm, 403: Type.Union([ErrorVm, RadarErrorVm]) };

export const oauthClientRoutes: FastifyPluginAsyncTypebox<{ oauthClients: OAuthClientService }> = async (app, { oauthClients }) => {
  app.get('/oauth-clients', {
    schema: { tags, summary: 'All OAuth clients', response: { 200: Type.Array(ClientDetailsDto), 401: ErrorVm, 403: ErrorVm } },
    preHandler: requireScope('OAUTHCLIENTS.READ'),
  }, async () => oauthClients.list());

  app.get('/oauth-clients/:clientId', {
    schema: { tags, summary: 'One OAuth client', params: ClientIdParams, response: { 200: ClientDetailsDto, ...common, 404: RadarErrorVm } },
    preHandler: requireScope('OAUTHCLIENTS.READ'),
  }, async (req) => oauthClients.get(req.params.clientId));

  app.post('/oauth-clients', {
    schema: { tags, summary: 'Create an OAuth client', body: ClientDetailsInput, response: { 201: ClientDetailsDto, ...common, 409: RadarErrorVm } },
    preHandler: requireGlobalPermission('OAUTHCLIENTS.CREATE'),
  }, async (req, reply) => {
    const created = await oauthClients.create(req.body, actorOf(req));
    return reply.code(201)
      .header('location', `/api/oauth-clients/${encodeURIComponent(created.clientId)}`)
      .header(ALERT, 'managementPortalApp.oauthClient.created').header(PARAMS, created.clientId)
      .send(created);
  });

  app.put('/oauth-clients', {
    schema: { tags, summary: 'Update an OAuth client (403 when protected)', body: ClientDetailsInput, response: { 200: ClientDetailsDto, ...common, 404: RadarErrorVm } },
    preHandler: requireGlobalPermission('OAUTHCLIENTS.UPDATE'),
  }, async (req, reply) => {
    const updated = await oauthClients.update(req.body, actorOf(req));
    return reply.header(ALERT, 'managementPortalApp.oauthClient.updated').header(PARAMS, updated.clientId).send(updated);
  });

  app.delete('/oauth-clients/:clientId', {
    schema: { tags, summary: 'Delete an OAuth client (403 when protected)', params: ClientIdParams, response: { 200: Type.Null({ description: 'Empty body' }), ...common, 404: RadarErrorVm } },
    preHandler: requireGlobalPermission('OAUTHCLIENTS.DELETE'),
  }, async (req, reply) => {
    await oauthClients.remove(req.params.clientId, actorOf(req));
    return reply.header(ALERT, 'managementPortalApp.oauthClient.deleted').header(PARAMS, req.params.clientId).send(undefined as never);
  });
};
