/**
 * Public keys as radar-auth 2.1 reads them (clients.md §3.1): a ManagementPortal
 * `/oauth/token_key` answer `{"keys":[…]}` whose entries are either MP keys (`value`: a PEM of
 * the X.509 SubjectPublicKeyInfo, `EC PUBLIC KEY` or `PUBLIC KEY` label) or standard JWKs (EC with
 * `crv` P-256/P-384/P-521, RSA with `n` and `e`; `x5c[0]` first when present), and loose PEMs
 * (the `publicKeys` of a `radar_is.yml`).
 *
 * Each key says which JWS algorithms it verifies: an EC key the one of its curve, an RSA key the
 * `alg` its entry names, or RS256/384/512 when nothing names one (a loose PEM).
 */
import { createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';

export type JwsAlg = 'ES256' | 'ES384' | 'ES512' | 'RS256' | 'RS384' | 'RS512';

export interface PublicKey {
  /** `kid` of the key, when its source names one (this process's keys, JWKs with `kid`). */
  kid?: string;
  algs: ReadonlySet<JwsAlg>;
  key: KeyObject;
}

const RSA_ALGS: readonly JwsAlg[] = ['RS256', 'RS384', 'RS512'];
const EC_ALG_OF_CURVE: Readonly<Record<string, JwsAlg>> = { prime256v1: 'ES256', secp384r1: 'ES384', secp521r1: 'ES512' };

export class UnreadableKey extends Error {}

/** The algorithms `key` fits; `alg` (an entry's own claim) narrows an RSA key. */
function algsOf(key: KeyObject, alg: unknown): Set<JwsAlg> {
  if (key.asymmetricKeyType === 'ec') {
    const curveAlg = EC_ALG_OF_CURVE[key.asymmetricKeyDetails?.namedCurve ?? ''];
    if (!curveAlg) throw new UnreadableKey(`EC curve ${key.asymmetricKeyDetails?.namedCurve} is not P-256, P-384 or P-521`);
    return new Set([curveAlg]);
  }
  if (key.asymmetricKeyType === 'rsa') {
    if (alg === undefined || alg === null) return new Set(RSA_ALGS);
    if (typeof alg === 'string' && (RSA_ALGS as readonly string[]).includes(alg)) return new Set([alg as JwsAlg]);
    throw new UnreadableKey(`RSA key with algorithm ${String(alg)}`);
  }
  throw new UnreadableKey(`key type ${key.asymmetricKeyType} is neither EC nor RSA`);
}

const PEM = /^-----BEGIN ([A-Z]+ )?PUBLIC KEY-----([\s\S]*?)-----END ([A-Z]+ )?PUBLIC KEY-----\s*$/;

/** A public-key PEM (`PUBLIC KEY`, `EC PUBLIC KEY` or `RSA PUBLIC KEY` label, body on one line or many). */
export function keyFromPem(pem: string, alg?: unknown, kid?: string): PublicKey {
  const match = PEM.exec(pem.trim());
  if (!match) throw new UnreadableKey('not a public-key PEM');
  const der = Buffer.from(match[2]!.replace(/\s+/g, ''), 'base64');
  let key: KeyObject;
  try {
    key = match[1] === 'RSA '
      ? createPublicKey({ key: der, format: 'der', type: 'pkcs1' })
      : createPublicKey({ key: der, format: 'der', type: 'spki' });
  } catch (err) {
    throw new UnreadableKey(`unreadable PEM body (${(err as Error).message})`);
  }
  return { ...(kid ? { kid } : {}), algs: algsOf(key, alg), key };
}

/** One entry of a `{"keys": […]}` answer. */
export function keyFromEntry(entry: unknown): PublicKey {
  if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) throw new UnreadableKey('a key entry is not an object');
  const e = entry as Record<string, unknown>;
  const kid = typeof e.kid === 'string' && e.kid !== '' ? e.kid : undefined;
  if (typeof e.value === 'string') {
    // MP's own format; radar-auth defaults its `alg` to ES256, which an EC key's curve decides anyway.
    if (typeof e.kty !== 'string') throw new UnreadableKey('an MP key without kty');
    return keyFromPem(e.value, e.kty === 'RSA' ? (e.alg ?? 'RS256') : undefined, kid);
  }
  if (Array.isArray(e.x5c) && typeof e.x5c[0] === 'string') {
    try {
      const cert = createPublicKey(`-----BEGIN CERTIFICATE-----\n${e.x5c[0]}\n-----END CERTIFICATE-----`);
      return { ...(kid ? { kid } : {}), algs: algsOf(cert, e.kty === 'RSA' ? (e.alg ?? 'RS256') : undefined), key: cert };
    } catch {
      // Not a certificate: the JWK members below decide.
    }
  }
  if (e.kty === 'EC') {
    if (!['P-256', 'P-384', 'P-521'].includes(e.crv as string) || typeof e.x !== 'string' || typeof e.y !== 'string') {
      throw new UnreadableKey('an EC JWK needs crv P-256, P-384 or P-521, x and y');
    }
    return { ...(kid ? { kid } : {}), ...jwkKey({ kty: 'EC', crv: e.crv as string, x: e.x, y: e.y }, undefined) };
  }
  if (e.kty === 'RSA') {
    if (typeof e.n !== 'string') throw new UnreadableKey('an RSA JWK needs n');
    return { ...(kid ? { kid } : {}), ...jwkKey({ kty: 'RSA', n: e.n, e: typeof e.e === 'string' ? e.e : 'AQAB' }, e.alg ?? 'RS256') };
  }
  throw new UnreadableKey(`key type ${String(e.kty)} is neither EC nor RSA`);
}

function jwkKey(jwk: JsonWebKey, alg: unknown): Omit<PublicKey, 'kid'> {
  let key: KeyObject;
  try {
    key = createPublicKey({ key: jwk, format: 'jwk' });
  } catch (err) {
    throw new UnreadableKey(`unreadable JWK (${(err as Error).message})`);
  }
  return { algs: algsOf(key, alg), key };
}

/**
 * The keys of a `{"keys": […]}` document. A bad entry does not spoil the others: it is reported
 * through `onUnreadable` and left out.
 */
export function keysFromKeySet(document: unknown, onUnreadable: (error: UnreadableKey, index: number) => void): PublicKey[] {
  const list = document !== null && typeof document === 'object' ? (document as { keys?: unknown }).keys : undefined;
  if (!Array.isArray(list)) throw new UnreadableKey('the answer has no "keys" list');
  const keys: PublicKey[] = [];
  list.forEach((entry, index) => {
    try {
      keys.push(keyFromEntry(entry));
    } catch (err) {
      if (!(err instanceof UnreadableKey)) throw err;
      onUnreadable(err, index);
    }
  });
  return keys;
}
