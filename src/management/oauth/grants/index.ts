/** The grants the token endpoint serves, by `grant_type`. Adding a grant means adding a module here. */
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

export type { Grant, GrantDeps, GrantContext, TokenParams } from './types.js';
