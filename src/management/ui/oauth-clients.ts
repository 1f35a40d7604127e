/**
 * `/oauth-clients`: the OAuth clients, one table row each, and their create, edit and delete
 * forms (managementportal.md §13, §2.10, §6). The pages call the API's `OAuthClientService` after
 * the same permission checks as `/api/oauth-clients`: reading needs the scope OAUTHCLIENTS.READ,
 * changes the global OAUTHCLIENTS.CREATE/UPDATE/DELETE. A protected client (`protected` = "true",
 * such as the admin UI's own) says so on the list and on its page (`/oauth-clients/{id}`), whose
 * "Edit" and "Delete" are disabled with the reason beside them; its forms answer 403 saying why,
 * and the service refuses to change it anyway (403 `error.oAuthClientProtected`).
 *
 * "Generate secret" makes a random secret on the server; the page answering the save shows it
 * once (it is stored hashed and never shown again).
 */
import { randomBytes } from 'node:crypto';
import { Type, type Static } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ShownOnce } from './shown-once.js';
import type { OAuthClientService } from '../api/oauth-clients/service.js';
import type { ClientDetailsDtoT, ClientDetailsInputT } from '../api/oauth-clients/schemas.js';
import { hasPermission } from '../authz/oracle.js';
import { actorOf, authorize, principal } from '../security/authorization.js';
import { requirePage } from './nav.js';
import { context, render } from './context.js';
import { formRefusal, PageRefused } from './errors.js';
import type { MessageKey } from '../i18n/translator.js';

/** The grants the token endpoint knows, offered as checkboxes. */
export const GRANT_TYPES = ['authorization_code', 'refresh_token', 'password', 'client_credentials'] as const;
const CLIENT_ID = /^[_'.@A-Za-z0-9- ]{1,255}$/;
const MAX_VALIDITY = 2_147_483_647;

const text = (maxLength: number) => Type.Optional(Type.String({ maxLength }));
const ClientForm = Type.Object({
  _csrf: Type.String(),
  clientId: text(255),
  clientSecret: text(255),
  generateSecret: text(10),
  publicClient: text(10),
  scope: text(20_000),
  resourceIds: text(20_000),
  authorizedGrantTypes: Type.Optional(Type.Union([Type.String({ maxLength: 100 }), Type.Array(Type.String({ maxLength: 100 }), { maxItems: 20 })])),
  registeredRedirectUri: text(20_000),
  authorities: text(20_000),
  autoApproveScopes: text(20_000),
  accessTokenValiditySeconds: text(20),
  refreshTokenValiditySeconds: text(20),
  dynamicRegistration: text(10),
});
type ClientFormT = Static<typeof ClientForm>;
const ClientParams = Type.Object({ clientId: Type.String({ minLength: 1, maxLength: 255 }) });
const CsrfForm = Type.Object({ _csrf: Type.String() });
const schema = { hide: true };
const secretPath = (base: string, clientId: string) => `${base}/oauth-clients/${encodeURIComponent(clientId)}/secret`;

/** What the form shows: the client's fields as typed (lists as lines). */
interface FormValues {
  clientId: string;
  scope: string;
  resourceIds: string;
  authorizedGrantTypes: string[];
  registeredRedirectUri: string;
  authorities: string;
  autoApproveScopes: string;
  accessTokenValiditySeconds: string;
  refreshTokenValiditySeconds: string;
  dynamicRegistration: boolean;
}

const lines = (list: readonly string[]) => list.join('\n');
const isProtected = (client: ClientDetailsDtoT) => (client.additionalInformation.protected ?? '').toLowerCase() === 'true';
const isDynamic = (client: ClientDetailsDtoT) => (client.additionalInformation.dynamic_registration ?? '').toLowerCase() === 'true';

function valuesOf(client: ClientDetailsDtoT): FormValues {
  return {
    clientId: client.clientId,
    scope: lines(client.scope),
    resourceIds: lines(client.resourceIds),
    authorizedGrantTypes: client.authorizedGrantTypes,
    registeredRedirectUri: lines(client.registeredRedirectUri),
    authorities: lines(client.authorities),
    autoApproveScopes: lines(client.autoApproveScopes),
    accessTokenValiditySeconds: client.accessTokenValiditySeconds?.toString() ?? '',
    refreshTokenValiditySeconds: client.refreshTokenValiditySeconds?.toString() ?? '',
    dynamicRegistration: isDynamic(client),
  };
}

const EMPTY: FormValues = {
  clientId: '', scope: '', resourceIds: 'res_ManagementPortal', authorizedGrantTypes: [], registeredRedirectUri: '', authorities: '',
  autoApproveScopes: '', accessTokenValiditySeconds: '', refreshTokenValiditySeconds: '', dynamicRegistration: false,
};

const asArray = (value: string | string[] | undefined) => (value === undefined ? [] : Array.isArray(value) ? value : [value]);

function formValues(body: ClientFormT): FormValues {
  return {
    clientId: (body.clientId ?? '').trim(),
    scope: body.scope ?? '',
    resourceIds: body.resourceIds ?? '',
    authorizedGrantTypes: asArray(body.authorizedGrantTypes),
    registeredRedirectUri: body.registeredRedirectUri ?? '',
    authorities: body.authorities ?? '',
    autoApproveScopes: body.autoApproveScopes ?? '',
    accessTokenValiditySeconds: (body.accessTokenValiditySeconds ?? '').trim(),
    refreshTokenValiditySeconds: (body.refreshTokenValiditySeconds ?? '').trim(),
    dynamicRegistration: body.dynamicRegistration !== undefined,
  };
}

/** A form refusal: the message key shown in the alert. */
class FormProblem extends Error {
  constructor(readonly key: MessageKey) { super(key); }
}

/** Entries separated by commas, spaces or new lines; the API's limits (200 of ≤ 2048 characters). */
function listOf(value: string): string[] {
  const list = [...new Set(value.split(/[\s,]+/).filter((s) => s !== ''))];
  if (list.length > 200 || list.some((s) => s.length > 2048)) throw new FormProblem('clients.badList');
  return list;
}

function validityOf(value: string): number | null {
  if (value === '') return null;
  const n = /^\d{1,10}$/.test(value) ? Number(value) : NaN;
  if (!(n <= MAX_VALIDITY)) throw new FormProblem('clients.badValidity');
  return n;
}

/** The API input of a form (every field but the secret); `info` keeps the client's other additional information. */
function inputOf(values: FormValues, info: Record<string, string>): ClientDetailsInputT {
  if (!CLIENT_ID.test(values.clientId)) throw new FormProblem('clients.badId');
  const additionalInformation: Record<string, string> = { ...info };
  if (values.dynamicRegistration) additionalInformation.dynamic_registration = 'true';
  else delete additionalInformation.dynamic_registration;
  return {
    clientId: values.clientId,
    scope: listOf(values.scope),
    resourceIds: listOf(values.resourceIds),
    authorizedGrantTypes: values.authorizedGrantTypes.filter((g) => (GRANT_TYPES as readonly string[]).includes(g)),
    registeredRedirectUri: listOf(values.registeredRedirectUri),
    authorities: listOf(values.authorities),
    autoApproveScopes: listOf(values.autoApproveScopes),
    accessTokenValiditySeconds: validityOf(values.accessTokenValiditySeconds),
    refreshTokenValiditySeconds: validityOf(values.refreshTokenValiditySeconds),
    additionalInformation,
  };
}

const newSecret = () => randomBytes(32).toString('base64url');

export const oauthClientRoutes: FastifyPluginAsyncTypebox<{ oauthClients: OAuthClientService; shownOnce: ShownOnce }> = async (app, { oauthClients, shownOnce }) => {
  const formPage = (request: FastifyRequest, reply: FastifyReply, mode: 'create' | 'edit', values: FormValues, error: string | null, status = 200) => {
    const ui = context(request);
    const title = mode === 'create' ? ui.t('clients.createTitle') : ui.t('clients.editTitle', { clientId: values.clientId });
    const action = mode === 'create' ? `${ui.base}/oauth-clients/new` : `${ui.base}/oauth-clients/${encodeURIComponent(values.clientId)}/edit`;
    return render(request, reply, 'oauth-clients/form', { title, mode, action, values, grantTypes: GRANT_TYPES, error }, status);
  };

  /** The client to change, refused (403, the page saying why) when protected, as the API refuses it. */
  async function changeable(request: FastifyRequest, clientId: string): Promise<ClientDetailsDtoT> {
    const client = await oauthClients.get(clientId);
    if (isProtected(client)) throw new PageRefused(403, context(request).t('clientsProtected.refused', { clientId: client.clientId }));
    return client;
  }

  /** Which forms the user may open: those who may only read (project admins, for the pairing dialog) get no links to forms that refuse them. */
  const mayOf = (request: FastifyRequest) => {
    const auth = principal(request);
    return { create: hasPermission(auth, 'OAUTHCLIENTS.CREATE'), edit: hasPermission(auth, 'OAUTHCLIENTS.UPDATE'), delete: hasPermission(auth, 'OAUTHCLIENTS.DELETE') };
  };

  /** Saves, or answers the form again with what refused it. */
  async function save(request: FastifyRequest, reply: FastifyReply, mode: 'create' | 'edit', body: ClientFormT, existing?: ClientDetailsDtoT) {
    const ui = context(request);
    const values = formValues(body);
    if (existing) values.clientId = existing.clientId;
    const again = (message: string, status = 400) => formPage(request, reply, mode, values, message, status);
    const typed = body.clientSecret ?? '';
    const generate = body.generateSecret !== undefined;
    let input: ClientDetailsInputT;
    try {
      if (generate && typed !== '') throw new FormProblem('clients.secretAndGenerate');
      input = inputOf(values, existing?.additionalInformation ?? {});
    } catch (err) {
      if (err instanceof FormProblem) return again(ui.t(err.key));
      throw err;
    }
    const secret = generate ? newSecret() : typed;
    // Create: empty is a public client. Edit: empty keeps the secret, unless "public client" is ticked.
    input.clientSecret = mode === 'create' ? secret || null : secret !== '' ? secret : body.publicClient !== undefined ? '' : null;
    try {
      const saved = mode === 'create' ? await oauthClients.create(input, actorOf(request)) : await oauthClients.update(input, actorOf(request));
      request.log.info({ clientId: saved.clientId, mode }, 'oauth client saved in the admin UI');
      if (!generate) return reply.redirect(`${ui.base}/oauth-clients`, 303);
      // Post, redirect, show once: the secret page shows it and forgets it; a reload re-submits nothing.
      const page = secretPath(ui.base, saved.clientId);
      shownOnce.keep(request, reply, page, ui.session!.id, secret);
      return reply.redirect(page, 303);
    } catch (err) {
      const refusal = formRefusal(err);
      if (refusal) return again(refusal.message, refusal.status);
      throw err;
    }
  }

  app.get('/oauth-clients', { schema }, async (request, reply) => {
    requirePage(request, 'oauthClients');
    const ui = context(request);
    const clients = (await oauthClients.list()).map((client) => ({ ...client, protected: isProtected(client) }));
    return render(request, reply, 'oauth-clients/list', { title: ui.t('clients.title'), clients, may: mayOf(request) });
  });

  app.get('/oauth-clients/:clientId', { schema: { ...schema, params: ClientParams } }, async (request, reply) => {
    requirePage(request, 'oauthClients');
    const ui = context(request);
    const client = await oauthClients.get(request.params.clientId);
    return render(request, reply, 'oauth-clients/detail', {
      title: ui.t('clientsProtected.detailTitle', { clientId: client.clientId }), client: { ...client, protected: isProtected(client) }, may: mayOf(request),
    });
  });

  app.get('/oauth-clients/new', { schema }, async (request, reply) => {
    authorize(request, 'OAUTHCLIENTS.CREATE', {});
    return formPage(request, reply, 'create', EMPTY, null);
  });

  app.post('/oauth-clients/new', { schema: { ...schema, body: ClientForm } }, async (request, reply) => {
    authorize(request, 'OAUTHCLIENTS.CREATE', {});
    return save(request, reply, 'create', request.body);
  });

  app.get('/oauth-clients/:clientId/edit', { schema: { ...schema, params: ClientParams } }, async (request, reply) => {
    authorize(request, 'OAUTHCLIENTS.UPDATE', {});
    return formPage(request, reply, 'edit', valuesOf(await changeable(request, request.params.clientId)), null);
  });

  app.post('/oauth-clients/:clientId/edit', { schema: { ...schema, params: ClientParams, body: ClientForm } }, async (request, reply) => {
    authorize(request, 'OAUTHCLIENTS.UPDATE', {});
    return save(request, reply, 'edit', request.body, await changeable(request, request.params.clientId));
  });

  // The generated secret, the one time it is shown (never stored in the clear, never cached).
  app.get('/oauth-clients/:clientId/secret', { schema: { ...schema, params: ClientParams } }, async (request, reply) => {
    authorize(request, 'OAUTHCLIENTS.UPDATE', {});
    const ui = context(request);
    const { clientId } = request.params;
    const secret = shownOnce.take(request, reply, secretPath(ui.base, clientId), ui.session!.id);
    reply.header('cache-control', 'no-store');
    return render(request, reply, 'oauth-clients/saved', { title: ui.t('clients.savedTitle', { clientId }), clientId, secret: secret ?? null });
  });

  app.get('/oauth-clients/:clientId/delete', { schema: { ...schema, params: ClientParams } }, async (request, reply) => {
    authorize(request, 'OAUTHCLIENTS.DELETE', {});
    const ui = context(request);
    const { clientId } = await changeable(request, request.params.clientId);
    return render(request, reply, 'oauth-clients/delete', { title: ui.t('clients.deleteTitle', { clientId }), clientId });
  });

  app.post('/oauth-clients/:clientId/delete', { schema: { ...schema, params: ClientParams, body: CsrfForm } }, async (request, reply) => {
    authorize(request, 'OAUTHCLIENTS.DELETE', {});
    await changeable(request, request.params.clientId);
    await oauthClients.remove(request.params.clientId, actorOf(request));
    request.log.info({ clientId: request.params.clientId }, 'oauth client deleted in the admin UI');
    return reply.redirect(`${context(request).base}/oauth-clients`, 303);
  });
};
