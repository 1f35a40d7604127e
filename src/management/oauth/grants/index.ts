/** The grants the token endpoint serves, by `grant_type`. Adding a grant means adding a module here. */
import { Type, type TProperties } from 'typebox';
import * as authorizationCode from './authorization-code.js';
import * as clientCredentials from './client-credentials.js';
import * as password from './password.js';
import * as refreshToken from './refresh-token.js';
import type { Grant } from './types.js';

export const GRANTS: ReadonlyMap<string, Grant> = new Map<string, Grant>([
  [authorizationCode.grantType, authorizationCode],
  [clientCredentials.grantType, clientCredentials],
  [password.grantType, password],
  [refreshToken.grantType, refreshToken],
]);

const param = (description: string) => Type.Optional(Type.String({ description }));

/**
 * The token request's body schema: `grant_type`, each grant's parameters (a parameter several
 * grants read names them all) and the client's credentials. Every field is optional, because any
 * of them may come in the query string instead.
 */
export const TokenRequest = Type.Object({
  grant_type: param([...GRANTS.keys()].join(', ')),
  ...Object.fromEntries([...new Set([...GRANTS.values()].flatMap((grant) => Object.keys(grant.parameters)))].map((name) => {
    const readers = [...GRANTS.values()].filter((grant) => name in grant.parameters);
    const grants = `${readers.map((grant) => grant.grantType).join(', ')} grant${readers.length > 1 ? 's' : ''}`;
    return [name, param(`${grants}: ${readers[0]!.parameters[name]}`)];
  })) as TProperties,
  client_id: param('Client authentication by parameters (instead of HTTP Basic)'),
  client_secret: param('Client authentication by parameters; empty for a public client'),
}, { description: 'application/x-www-form-urlencoded token request' });

export type { Grant, GrantDeps, TokenParams } from './types.js';
