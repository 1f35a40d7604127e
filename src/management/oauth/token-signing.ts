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
import { createHash } from 'node:crypto';
import { createCryptoWorker } from './crypto-worker.js';
import type { KeySet } from './keystore.js';
import { InvalidToken } from './errors.js';
import type { Claims, TokenVerifier } from '../security/token-verifier.js';

export type { Claims, TokenVerifier };

const b64url = (data: string | Buffer) => Buffer.from(data).toString('base64url');

export interface TokenSigner {
  /** Signs with the key set's signing key, on the crypto worker. */
  sign(claims: Claims): Promise<string>;
  /** The signing input (`header.payload`) of a token with `claims`: what `signInput` signs. */
  encode(claims: Claims): string;
  /** The compact JWS of a signing input `encode` made. */
  signInput(input: string): Promise<string>;
}

/** A presented token parsed and checked for everything but its signature (`TokenDecoder.decode`). */
export interface DecodedToken {
  claims: Claims;
  /** The token's signing input, `header.payload`. */
  input: string;
  /** Checks the signature: resolves when it is valid, else `InvalidToken` as `verify` throws it. */
  checkSignature(): Promise<void>;
}

export interface TokenDecoder extends TokenVerifier {
  /**
   * Parses a token and checks all that `verify` checks except the signature, which the caller
   * either checks (`checkSignature`) or replaces by something as strong (the refresh grant's
   * recorded digest of the signing input). Throws `InvalidToken` as `verify` does.
   */
  decode(token: string, nowSeconds: number): DecodedToken;
}

/** SHA-256 (base64url) of a signing input: what a refresh token's record keeps of its token. */
export const inputDigest = (input: string): string => createHash('sha256').update(input).digest('base64url');

export interface TokenSigning extends TokenSigner, TokenDecoder {
  /** Stops the worker thread; signing or verifying afterwards is refused. */
  close(): Promise<void>;
}

const VALIDATION_FAILED = 'No registered validator could authenticate this token';

export function createTokenSigning(keys: KeySet): TokenSigning {
  const worker = createCryptoWorker(keys);
  // Encoded once: every token of the key set has the same header.
  const header = b64url(JSON.stringify({ alg: keys.signing.alg, typ: 'JWT', kid: keys.signing.kid }));

  const encode = (claims: Claims) => `${header}.${b64url(JSON.stringify(claims))}`;
  const signInput = async (input: string) => `${input}.${await worker.sign(input)}`;

  function decode(token: string, nowSeconds: number): DecodedToken {
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
    // Expiry and key first: they cost nothing, a signature check costs ~60–100 µs.
    if (typeof claims.exp !== 'number' || claims.exp <= nowSeconds) throw new InvalidToken(VALIDATION_FAILED);
    const kid = typeof head.kid === 'string' ? head.kid : null;
    const alg = head.alg;
    if (typeof alg !== 'string' || (kid !== null && !keys.byKid.has(kid))) throw new InvalidToken(VALIDATION_FAILED);
    const input = `${h}.${p}`;
    return {
      claims,
      input,
      async checkSignature() {
        if (!await worker.verify(kid, alg, input, s)) throw new InvalidToken(VALIDATION_FAILED);
      },
    };
  }

  return {
    encode,
    signInput,
    sign: (claims) => signInput(encode(claims)),
    decode,
    async verify(token, nowSeconds) {
      const decoded = decode(token, nowSeconds);
      await decoded.checkSignature();
      return decoded.claims;
    },

    close: () => worker.close(),
  };
}
