/**
 * The signing key and the checking keys, from a PKCS12 keystore read with node-forge on a worker
 * thread (keystore-reader.ts; feasibility.md §2): EC P-256 → ES256, RSA → RS256. The store password is also the key
 * password, as in the reference (managementportal.md §3.4).
 *
 * Errors name the setting to fix. Without a keystore file the dev profile generates an in-memory
 * EC key (tokens then die with the process); the prod profile refuses to start.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { existsSync } from 'node:fs';
import { calculateJwkThumbprint, type JWK } from 'jose';
import { startKeystoreRead, type KeystoreRead, type KeystoreReadResult } from './keystore-reader.js';

export type SigningAlg = 'ES256' | 'RS256';

export interface VerificationKey {
  kid: string;
  alg: SigningAlg;
  publicKey: KeyObject;
  /** Standard JWK members of the public key (`kty`, `crv`/`x`/`y` or `n`/`e`). */
  jwk: JWK;
  /** PEM as radar-auth parses it: `EC PUBLIC KEY` label for EC, `PUBLIC KEY` for RSA, body on one line. */
  pem: string;
}

export interface SigningKey extends VerificationKey {
  privateKey: KeyObject;
}

export interface KeySet {
  signing: SigningKey;
  /** The signing key first, then the checking keys. */
  verification: VerificationKey[];
  /** Lookup by `kid`. */
  byKid: ReadonlyMap<string, VerificationKey>;
}

export interface KeystoreSettings {
  profile: 'dev' | 'prod';
  file: string;
  password: string;
  signingAlias: string;
  checkingAliases: readonly string[];
}

export interface Warn { warn(obj: object, msg: string): void }

export class KeystoreError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KeystoreError';
  }
}

const FILE = 'MANAGEMENTPORTAL_OAUTH_KEY_STORE';
const PASSWORD = 'MANAGEMENTPORTAL_OAUTH_KEY_STORE_PASSWORD';
const SIGNING = 'MANAGEMENTPORTAL_OAUTH_SIGNING_KEY_ALIAS';
const CHECKING = 'MANAGEMENTPORTAL_OAUTH_CHECKING_KEY_ALIASES';
/** The password of the reference's documented keytool command and of its example keystores. */
const REFERENCE_PASSWORD = 'radarbase';

/**
 * The key set of `settings`. `prefetched`: a read of the keystore already under way (main.ts starts
 * one before the app's modules load), used when it is of the same file with the same password.
 */
export async function loadKeySet(settings: KeystoreSettings, log: Warn, prefetched?: KeystoreRead): Promise<KeySet> {
  if (!existsSync(settings.file)) {
    if (settings.profile === 'prod') throw new KeystoreError(`${FILE}: keystore file not found: ${settings.file}`);
    log.warn({ file: settings.file }, 'no keystore: signing with a generated in-memory EC key (dev profile only; tokens die with the process)');
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const signing = await describe(privateKey, 'generated');
    return keySet(signing, []);
  }
  if (!settings.password) throw new KeystoreError(`${PASSWORD}: must not be empty`);
  const read = prefetched?.file === settings.file && prefetched.password === settings.password
    ? prefetched : startKeystoreRead(settings.file, settings.password);
  const entries = privateKeys(await read.result, settings.file);
  const signingKey = entries.get(settings.signingAlias);
  if (!signingKey) {
    const known = [...entries.keys()].join(', ') || 'none';
    throw new KeystoreError(`${SIGNING}: no private key with alias "${settings.signingAlias}" in ${settings.file} (aliases: ${known})`);
  }
  const signing = await describe(signingKey, settings.signingAlias);
  const checking: VerificationKey[] = [];
  for (const alias of settings.checkingAliases) {
    if (alias === settings.signingAlias) continue;
    const key = entries.get(alias);
    if (!key) {
      // Kept from the reference: a checking alias without a key is skipped with a warning.
      log.warn({ alias, setting: CHECKING }, 'checking key alias not found in the keystore, skipped');
      continue;
    }
    const { privateKey: _private, ...verification } = await describe(key, alias);
    checking.push(verification);
  }
  if (settings.profile === 'prod' && settings.password === REFERENCE_PASSWORD) {
    // Warned, not refused: the reference's deployments use it, so refusing would stop their upgrade.
    log.warn({ setting: PASSWORD },
      `keystore password is the public default "${REFERENCE_PASSWORD}": anyone with a copy of the keystore can sign tokens; `
      + `give the keystore and its keys a password of your own (the keys, and so the issued tokens, stay the same) and set ${PASSWORD}`);
  }
  return keySet(signing, checking);
}

function keySet(signing: SigningKey, checking: VerificationKey[]): KeySet {
  const { privateKey: _private, ...signingPublic } = signing;
  const verification = [signingPublic, ...checking.filter((k) => k.kid !== signing.kid)];
  return { signing, verification, byKid: new Map(verification.map((k) => [k.kid, k])) };
}

/** The private keys of a keystore read (keystore-reader.ts) by alias, or the `KeystoreError` naming the setting to fix. */
function privateKeys(read: KeystoreReadResult, file: string): Map<string, KeyObject> {
  if ('error' in read) {
    if (/MAC could not be verified|Invalid password/i.test(read.error)) {
      throw new KeystoreError(`${PASSWORD}: wrong password for keystore ${file}`);
    }
    throw new KeystoreError(`${FILE}: ${file} is not a readable PKCS12 keystore (${read.error})`);
  }
  const out = new Map<string, KeyObject>();
  for (const [alias, der] of read.entries) {
    try {
      out.set(alias, createPrivateKey({ key: Buffer.from(der), format: 'der', type: 'pkcs8' }));
    } catch (err) {
      throw new KeystoreError(`${PASSWORD}: cannot decrypt the key "${alias}" in ${file} (the key password must equal the store password): ${(err as Error).message}`);
    }
  }
  return out;
}

async function describe(privateKey: KeyObject, alias: string): Promise<SigningKey> {
  const publicKey = createPublicKey(privateKey);
  const type = privateKey.asymmetricKeyType;
  let alg: SigningAlg;
  if (type === 'ec') {
    const curve = privateKey.asymmetricKeyDetails?.namedCurve;
    if (curve !== 'prime256v1') throw new KeystoreError(`${SIGNING}: key "${alias}" is on curve ${curve}; only P-256 (ES256) is supported`);
    alg = 'ES256';
  } else if (type === 'rsa') {
    alg = 'RS256';
  } else {
    throw new KeystoreError(`${SIGNING}: key "${alias}" is ${type}; only EC P-256 and RSA keys are supported`);
  }
  const exported = publicKey.export({ format: 'jwk' }) as JWK;
  const jwk: JWK = alg === 'ES256'
    ? { kty: 'EC', crv: exported.crv, x: exported.x, y: exported.y }
    : { kty: 'RSA', n: exported.n, e: exported.e };
  const kid = await calculateJwkThumbprint(jwk, 'sha256');
  const spki = (publicKey.export({ format: 'der', type: 'spki' }) as Buffer).toString('base64');
  const label = alg === 'ES256' ? 'EC PUBLIC KEY' : 'PUBLIC KEY';
  const pem = `-----BEGIN ${label}-----\n${spki}\n-----END ${label}-----`;
  return { kid, alg, publicKey, privateKey, jwk, pem };
}
