/**
 * The signing key and the checking keys, from a PKCS12 keystore read with node-forge
 * (feasibility.md §2): EC P-256 → ES256, RSA → RS256. The store password is also the key
 * password, as in the reference (managementportal.md §3.4).
 *
 * Errors name the setting to fix. Without a keystore file the dev profile generates an in-memory
 * EC key (tokens then die with the process); the prod profile refuses to start.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, pbkdf2Sync, type KeyObject } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import forge from 'node-forge';
import { calculateJwkThumbprint, type JWK } from 'jose';

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

export async function loadKeySet(settings: KeystoreSettings, log: Warn): Promise<KeySet> {
  if (!existsSync(settings.file)) {
    if (settings.profile === 'prod') throw new KeystoreError(`${FILE}: keystore file not found: ${settings.file}`);
    log.warn({ file: settings.file }, 'no keystore: signing with a generated in-memory EC key (dev profile only; tokens die with the process)');
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const signing = await describe(privateKey, 'generated');
    return keySet(signing, []);
  }
  if (!settings.password) throw new KeystoreError(`${PASSWORD}: must not be empty`);
  const entries = readKeystore(readFileSync(settings.file), settings.password, settings.file);
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

type Pbkdf2 = (p: string, s: string, c: number, dkLen: number, md?: unknown, callback?: unknown) => string;
const NATIVE_DIGESTS = new Set(['sha1', 'sha224', 'sha256', 'sha384', 'sha512']);

/**
 * Runs `fn` with forge's PBKDF2 computed by Node's (OpenSSL's) instead of forge's JavaScript.
 * PKCS12 files of keytool and OpenSSL 3 encrypt their bags with PBES2 (PBKDF2-HMAC-SHA256, 10,000
 * iterations or more): forge hands its own digest object to PBKDF2, which then never takes its
 * native path, and the two derivations took ~0.4 s of the start-up (about a quarter of it). The
 * bytes derived are the same: the password and salt go in as forge's binary strings (one byte a
 * character); a password with characters above U+00FF, which forge's JavaScript would not reduce to
 * a byte, keeps forge's own derivation. Swapped back before returning: `fn` is synchronous, so no
 * other caller of forge sees the swap.
 */
function withNativePbkdf2<T>(fn: () => T): T {
  const pkcs5 = forge.pkcs5 as unknown as { pbkdf2: Pbkdf2 };
  const own = pkcs5.pbkdf2;
  pkcs5.pbkdf2 = (p, s, c, dkLen, md, callback) => {
    const algorithm = (md as { algorithm?: unknown } | undefined)?.algorithm;
    if (callback !== undefined || typeof algorithm !== 'string' || !NATIVE_DIGESTS.has(algorithm) || !/^[\x00-\xff]*$/.test(p)) {
      return own(p, s, c, dkLen, md, callback);
    }
    return pbkdf2Sync(Buffer.from(p, 'binary'), Buffer.from(s, 'binary'), c, dkLen, algorithm).toString('binary');
  };
  try {
    return fn();
  } finally {
    pkcs5.pbkdf2 = own;
  }
}

/** Private keys of a PKCS12 file by alias (friendlyName). */
function readKeystore(buf: Buffer, password: string, file: string): Map<string, KeyObject> {
  let p12: forge.pkcs12.Pkcs12Pfx;
  try {
    p12 = withNativePbkdf2(() => forge.pkcs12.pkcs12FromAsn1(forge.asn1.fromDer(buf.toString('binary')), false, password));
  } catch (err) {
    const message = (err as Error).message;
    if (/MAC could not be verified|Invalid password/i.test(message)) {
      throw new KeystoreError(`${PASSWORD}: wrong password for keystore ${file}`);
    }
    throw new KeystoreError(`${FILE}: ${file} is not a readable PKCS12 keystore (${message})`);
  }
  const out = new Map<string, KeyObject>();
  const bags = (type: string) => p12.getBags({ bagType: type })[type] ?? [];
  const shrouded = bags(forge.pki.oids.pkcs8ShroudedKeyBag!);
  const plain = bags(forge.pki.oids.keyBag!);
  for (const bag of [...shrouded, ...plain]) {
    const alias = bag.attributes.friendlyName?.[0];
    if (typeof alias !== 'string') continue;
    // forge models RSA keys (bag.key) but not EC keys: those stay as PrivateKeyInfo ASN.1.
    const asn1 = bag.key ? forge.pki.wrapRsaPrivateKey(forge.pki.privateKeyToAsn1(bag.key as forge.pki.rsa.PrivateKey)) : bag.asn1;
    const der = Buffer.from(forge.asn1.toDer(asn1).getBytes(), 'binary');
    try {
      out.set(alias, createPrivateKey({ key: der, format: 'der', type: 'pkcs8' }));
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
