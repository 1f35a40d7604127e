/**
 * Compact JWS signing and verification with node:crypto (ES256 as IEEE P1363 `r‖s`, RS256).
 * The token endpoint is a hot path: the header is encoded once per key, and node:crypto signs
 * about four times faster than jose's WebCrypto path (feasibility.md §6). Signing and verifying
 * run on the key set's crypto worker thread (crypto-worker.ts): the event loop, the service's
 * bottleneck, goes on parsing and answering requests meanwhile.
 *
 * `createTokenSigning(keys)` is the one object that signs and verifies: it owns the key set's
 * worker thread, the management plugin creates it once and closes it with the app, and whatever
 * signs or verifies (token issuer, refresh grant, check_token/introspect/revoke, bearer
 * authentication) is handed it, or the narrower `TokenSigner` / `TokenVerifier` view of it.
 */
import { createCryptoWorker } from './crypto-worker.js';
import type { KeySet } from './keystore.js';
import { InvalidToken } from './errors.js';
import type { Claims, TokenVerifier } from '../security/token-verifier.js';

export type { Claims, TokenVerifier };

const b64url = (data: string | Buffer) => Buffer.from(data).toString('base64url');

export interface TokenSigner {
  /** Signs with the key set's signing key, on the crypto worker. */
  sign(claims: Claims): Promise<string>;
}

export interface TokenSigning extends TokenSigner, TokenVerifier {
  /** Stops the worker thread; signing or verifying afterwards is refused. */
  close(): Promise<void>;
}

const VALIDATION_FAILED = 'No registered validator could authenticate this token';

export function createTokenSigning(keys: KeySet): TokenSigning {
  const worker = createCryptoWorker(keys);
  // Encoded once: every token of the key set has the same header.
  const header = b64url(JSON.stringify({ alg: keys.signing.alg, typ: 'JWT', kid: keys.signing.kid }));

  return {
    async sign(claims) {
      const input = `${header}.${b64url(JSON.stringify(claims))}`;
      return `${input}.${await worker.sign(input)}`;
    },

    async verify(token, nowSeconds) {
      const parts = token.split('.');
      if (parts.length !== 3) throw new InvalidToken(VALIDATION_FAILED);
      const [h, p, s] = parts as [string, string, string];
      let head: { alg?: unknown; kid?: unknown };
      let claims: Claims;
      try {
        head = JSON.parse(Buffer.from(h, 'base64url').toString('utf8'));
        claims = JSON.parse(Buffer.from(p, 'base64url').toString('utf8'));
      } catch {
        throw new InvalidToken(VALIDATION_FAILED);
      }
      if (!head || typeof head !== 'object' || !claims || typeof claims !== 'object' || Array.isArray(claims)) {
        throw new InvalidToken(VALIDATION_FAILED);
      }
      // Expiry and key first: they cost nothing, a signature check costs ~60 µs.
      if (typeof claims.exp !== 'number' || claims.exp <= nowSeconds) throw new InvalidToken(VALIDATION_FAILED);
      const kid = typeof head.kid === 'string' ? head.kid : null;
      if (typeof head.alg !== 'string' || (kid !== null && !keys.byKid.has(kid))) throw new InvalidToken(VALIDATION_FAILED);
      if (!await worker.verify(kid, head.alg, `${h}.${p}`, s)) throw new InvalidToken(VALIDATION_FAILED);
      return claims;
    },

    close: () => worker.close(),
  };
}
