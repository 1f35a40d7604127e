/**
 * Compact JWS signing and verification with node:crypto (ES256 as IEEE P1363 `r‖s`, RS256).
 * The token endpoint is a hot path: the header is encoded once per key, and node:crypto signs
 * about four times faster than jose's WebCrypto path (feasibility.md §6). Signing and verifying
 * run on the key set's crypto worker thread (crypto-worker.ts): the event loop, the service's
 * bottleneck, goes on parsing and answering requests meanwhile.
 */
import { cryptoWorkerOf } from './crypto-worker.js';
import type { KeySet } from './keystore.js';
import { InvalidToken } from './errors.js';

export type Claims = Record<string, unknown>;

const b64url = (data: string | Buffer) => Buffer.from(data).toString('base64url');

export interface TokenSigner {
  /** Signs on the key set's crypto worker: the event loop goes on serving while OpenSSL works. */
  sign(claims: Claims): Promise<string>;
}

/** Signs with the key set's signing key. */
export function createSigner(keys: KeySet): TokenSigner {
  const key = keys.signing;
  const header = b64url(JSON.stringify({ alg: key.alg, typ: 'JWT', kid: key.kid }));
  const worker = cryptoWorkerOf(keys);
  return {
    async sign(claims) {
      const input = `${header}.${b64url(JSON.stringify(claims))}`;
      return `${input}.${await worker.sign(input)}`;
    },
  };
}

/** Stops the key set's crypto worker (the app's close). */
export const closeSigning = (keys: KeySet): Promise<void> => cryptoWorkerOf(keys).close();

const VALIDATION_FAILED = 'No registered validator could authenticate this token';

/**
 * Checks signature and `exp` against the key set and returns the claims. Any failure (not a JWT,
 * unknown key, bad signature, expired) is `InvalidToken` with the reference's description.
 * Tokens without `kid` (signed by the reference) are tried against every key.
 */
export async function verifyToken(token: string, keys: KeySet, nowSeconds: number): Promise<Claims> {
  const parts = token.split('.');
  if (parts.length !== 3) throw new InvalidToken(VALIDATION_FAILED);
  const [h, p, s] = parts as [string, string, string];
  let header: { alg?: unknown; kid?: unknown };
  let claims: Claims;
  try {
    header = JSON.parse(Buffer.from(h, 'base64url').toString('utf8'));
    claims = JSON.parse(Buffer.from(p, 'base64url').toString('utf8'));
  } catch {
    throw new InvalidToken(VALIDATION_FAILED);
  }
  if (!header || typeof header !== 'object' || !claims || typeof claims !== 'object' || Array.isArray(claims)) {
    throw new InvalidToken(VALIDATION_FAILED);
  }
  // Expiry and key first: they cost nothing, a signature check costs ~60 µs.
  if (typeof claims.exp !== 'number' || claims.exp <= nowSeconds) throw new InvalidToken(VALIDATION_FAILED);
  const kid = typeof header.kid === 'string' ? header.kid : null;
  if (typeof header.alg !== 'string' || (kid !== null && !keys.byKid.has(kid))) throw new InvalidToken(VALIDATION_FAILED);
  if (!await cryptoWorkerOf(keys).verify(kid, header.alg, `${h}.${p}`, s)) throw new InvalidToken(VALIDATION_FAILED);
  return claims;
}
