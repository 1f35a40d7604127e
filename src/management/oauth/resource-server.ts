/**
 * What a resource server in this process (the app server) may know of this authorization server
 * without HTTP: the public keys that `/oauth/token_key` publishes, whether a user may still use
 * its tokens, and a client's resources and scopes. `app.ts` builds it and hands it to the app
 * server, which declares the same shape on its side (domains never import each other).
 */
import type { KeyObject } from 'node:crypto';
import type { Database } from '../../platform/database.js';
import { findUserByLogin } from '../security/queries.js';
import { findClient } from './clients/queries.js';
import type { KeySet } from './keystore.js';

export interface LocalTokenAuthority {
  /** The signing key and the checking keys (fixed for the life of the process). */
  publicKeys(): readonly { kid: string; alg: string; publicKey: KeyObject }[];
  /** Whether the user exists and is activated (a deactivated or deleted user's tokens stop working). */
  userActive(login: string): Promise<boolean>;
  /** A client's resource ids and scopes, or undefined when there is no such client. */
  client(clientId: string): Promise<{ resourceIds: readonly string[]; scope: readonly string[] } | undefined>;
}

export function localTokenAuthority(db: Database, keys: KeySet): LocalTokenAuthority {
  const publicKeys = keys.verification.map(({ kid, alg, publicKey }) => ({ kid, alg, publicKey }));
  return {
    publicKeys: () => publicKeys,
    async userActive(login) {
      return (await findUserByLogin(db, login))?.activated === true;
    },
    async client(clientId) {
      const row = await findClient(db, clientId);
      return row && { resourceIds: row.resourceIds, scope: row.scope };
    },
  };
}
