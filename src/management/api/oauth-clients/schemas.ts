/** DTOs of `/api/oauth-clients` (the reference's `ClientDetailsDTO`, managementportal.md §2.10). */
import { Type, type Static, type TNumberOptions, type TStringOptions } from 'typebox';

import { nullable } from '../../../platform/schemas.js';

const nullableString = (opts: TStringOptions) => nullable(Type.String(opts));
const nullableInteger = (opts: TNumberOptions) => nullable(Type.Integer(opts));

/** `Constants.ENTITY_ID_REGEX` of the reference. */
const ENTITY_ID = "^[_'.@A-Za-z0-9- ]*$";
const list = (description: string) => Type.Array(Type.String({ maxLength: 2048 }), { maxItems: 200, description });
const validity = (description: string) => nullableInteger({ minimum: 0, maximum: 2_147_483_647, description });

export const ClientIdParams = Type.Object({ clientId: Type.String({ pattern: ENTITY_ID, minLength: 1, maxLength: 255 }) });

export const ClientDetailsDto = Type.Object({
  clientId: Type.String(),
  clientSecret: Type.Null({ description: 'Never returned' }),
  scope: Type.Array(Type.String()),
  resourceIds: Type.Array(Type.String()),
  authorizedGrantTypes: Type.Array(Type.String()),
  autoApproveScopes: Type.Array(Type.String()),
  accessTokenValiditySeconds: Type.Union([Type.Integer(), Type.Null()]),
  refreshTokenValiditySeconds: Type.Union([Type.Integer(), Type.Null()]),
  authorities: Type.Array(Type.String()),
  registeredRedirectUri: Type.Array(Type.String()),
  additionalInformation: Type.Record(Type.String(), Type.String(), { description: 'Values as strings, e.g. `"true"`' }),
}, { description: 'An OAuth client (ClientDetailsDTO); the secret is never returned' });
export type ClientDetailsDtoT = Static<typeof ClientDetailsDto>;

export const ClientDetailsInput = Type.Object({
  clientId: Type.String({ pattern: ENTITY_ID, minLength: 1, maxLength: 255 }),
  clientSecret: Type.Optional(nullableString({
    maxLength: 255, description: 'Create: empty or null makes a public client. Update: null keeps the secret, empty makes the client public',
  })),
  scope: Type.Optional(list('Scopes the client may request')),
  resourceIds: Type.Optional(list('Resource ids: the tokens\' `aud`')),
  authorizedGrantTypes: Type.Optional(list('Grant types the client may use')),
  autoApproveScopes: Type.Optional(list('Scopes approved without a consent page')),
  accessTokenValiditySeconds: Type.Optional(validity('Access-token lifetime; null: 12 hours')),
  refreshTokenValiditySeconds: Type.Optional(validity('Refresh-token lifetime; null: 30 days')),
  authorities: Type.Optional(list('Authorities of client-credentials tokens')),
  registeredRedirectUri: Type.Optional(list('Redirect URIs of the authorization-code flow')),
  additionalInformation: Type.Optional(Type.Record(Type.String(), Type.Unknown(), {
    maxProperties: 50, description: 'Free-form; values are stored as strings (`dynamic_registration`, `protected`)',
  })),
}, { additionalProperties: false, description: 'ClientDetailsDTO as sent on create and update' });
export type ClientDetailsInputT = Static<typeof ClientDetailsInput>;

