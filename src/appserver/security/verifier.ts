/**
 * Verifies ManagementPortal access tokens as radar-auth 2.1 does (clients.md §3.2), against every
 * key source at once: a token passes once one source's key verifies it.
 *
 * Rules (radar-auth `JwksTokenVerifierLoader` with java-jwt 4): header `alg` ES256/384/512 (JOSE
 * r‖s signature) or RS256/384/512, and a key that fits it (HMAC and `none` never do); `aud` (string
 * or list) holds the resource name; `scope` present; `exp` present and in the future; `iat` not in
 * the future; `nbf` honoured; `iss` not checked. Beyond radar-auth, as the management API does: a
 * refresh token (claim `ati`) is refused.
 *
 * Verified tokens are remembered by their SHA-256 until they expire, and forgotten when a source's
 * keys change. When no source verifies a token (unknown `kid`, bad signature), the remote sources
 * load again (each at most once a minute, key-sources.ts) and the token is tried once more.
 */
import { createHash, verify as verifySignature } from 'node:crypto';
import { createTtlCache } from '../../platform/ttl-cache.js';
import type { KeySource } from './key-sources.js';
import type { JwsAlg, PublicKey } from './keys.js';

export type Claims = Readonly<Record<string, unknown>>;

export interface Verified {
  claims: Claims;
  /** The source whose key verified the token. */
  source: KeySource;
}

export class TokenRejected extends Error {}

const HASH_OF: Readonly<Record<JwsAlg, string>> = {
  ES256: 'sha256', ES384: 'sha384', ES512: 'sha512', RS256: 'sha256', RS384: 'sha384', RS512: 'sha512',
};
/** JOSE signature length (r‖s) of each ECDSA algorithm. */
const EC_SIGNATURE_BYTES: Readonly<Partial<Record<JwsAlg, number>>> = { ES256: 64, ES384: 96, ES512: 132 };

interface Parsed {
  alg: JwsAlg;
  kid: string | undefined;
  claims: Record<string, unknown>;
  signingInput: Buffer;
  signature: Buffer;
}

function json(part: string): unknown {
  try {
    return JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

function parse(token: string): Parsed {
  const parts = token.split('.');
  if (parts.length !== 3 || parts.some((p) => !/^[A-Za-z0-9_-]*$/.test(p))) throw new TokenRejected('not a JWT');
  const header = json(parts[0]!);
  const claims = json(parts[1]!);
  if (!isObject(header) || !isObject(claims)) throw new TokenRejected('not a JWT');
  const alg = header.alg;
  if (typeof alg !== 'string' || !(alg in HASH_OF)) throw new TokenRejected(`algorithm ${String(alg)} is not accepted`);
  return {
    alg: alg as JwsAlg,
    kid: typeof header.kid === 'string' ? header.kid : undefined,
    claims,
    signingInput: Buffer.from(`${parts[0]}.${parts[1]}`),
    signature: Buffer.from(parts[2]!, 'base64url'),
  };
}

function signedBy(token: Parsed, key: PublicKey): boolean {
  if (!key.algs.has(token.alg)) return false;
  // A key with a kid answers only for tokens naming it; tokens without one (the reference's) try every key.
  if (token.kid !== undefined && key.kid !== undefined && key.kid !== token.kid) return false;
  const ecBytes = EC_SIGNATURE_BYTES[token.alg];
  if (ecBytes !== undefined) {
    if (token.signature.length !== ecBytes) return false;
    return verifySignature(HASH_OF[token.alg], token.signingInput, { key: key.key, dsaEncoding: 'ieee-p1363' }, token.signature);
  }
  return verifySignature(HASH_OF[token.alg], token.signingInput, key.key, token.signature);
}

const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string')
    : typeof value === 'string' ? value.split(' ').filter(Boolean) : [];

/** The claim checks, after the signature; throws `TokenRejected`. */
export function checkClaims(claims: Record<string, unknown>, resourceName: string, nowMs: number): void {
  const nowSeconds = Math.floor(nowMs / 1000);
  if (!strings(claims.aud).includes(resourceName)) throw new TokenRejected(`audience does not hold ${resourceName}`);
  if (claims.scope === undefined || claims.scope === null) throw new TokenRejected('no scope claim');
  if (typeof claims.exp !== 'number') throw new TokenRejected('no exp claim');
  if (nowMs >= claims.exp * 1000) throw new TokenRejected('expired');
  if (claims.iat !== undefined && (typeof claims.iat !== 'number' || claims.iat > nowSeconds)) throw new TokenRejected('issued in the future');
  if (claims.nbf !== undefined && (typeof claims.nbf !== 'number' || claims.nbf > nowSeconds)) throw new TokenRejected('not valid yet');
  if (claims.ati !== undefined) throw new TokenRejected('a refresh token');
}

export interface TokenVerifierOptions {
  sources: readonly KeySource[];
  resourceName: string;
  /** Epoch milliseconds. */
  now: () => number;
  /** Verified tokens remembered (least recently used first out). */
  maxCached?: number;
}

export interface TokenVerifier {
  /** The claims of a valid token and the source that verified it; throws `TokenRejected`. */
  verify(token: string): Promise<Verified>;
  /** Forget every verified token (call when a source's keys changed). */
  forget(): void;
}

export const VERIFIED_TOKENS_KEPT = 10_000;

export function createTokenVerifier(options: TokenVerifierOptions): TokenVerifier {
  const { sources, resourceName, now } = options;
  const verified = createTtlCache<string, Verified>({ max: options.maxCached ?? VERIFIED_TOKENS_KEPT, now });

  function trySources(token: Parsed): KeySource | undefined {
    for (const source of sources) {
      if (source.keys().some((key) => signedBy(token, key))) return source;
    }
    return undefined;
  }

  return {
    forget: () => verified.clear(),
    async verify(raw) {
      const hash = createHash('sha256').update(raw).digest('base64url');
      const nowMs = now();
      const hit = verified.get(hash);
      if (hit) return hit;
      const token = parse(raw);
      // A key past its day loads again in the background; the token is not kept waiting for it.
      for (const source of sources) if (source.stale()) void source.refresh();
      let source = trySources(token);
      if (!source) {
        const loaded = await Promise.all(sources.map((s) => s.refresh()));
        if (loaded.some(Boolean)) source = trySources(token);
      }
      if (!source) throw new TokenRejected('no key verifies the signature');
      checkClaims(token.claims, resourceName, nowMs);
      const result: Verified = { claims: Object.freeze(token.claims), source };
      // Kept until the last millisecond before `exp`, when `checkClaims` would refuse it.
      const ttl = Math.floor((token.claims.exp as number) * 1000 - nowMs - 1);
      if (ttl >= 1) verified.set(hash, result, { ttl, start: nowMs });
      return result;
    },
  };
}
