/**
 * Reads a PKCS12 keystore's private keys with node-forge on a worker thread.
 *
 * forge's reading is ~0.1 s of JavaScript on this 2-core machine (the MAC's PKCS12 key derivation,
 * 10,000 rounds of SHA-256 for keytool's files, plus the bags' decryption and forge's own loading),
 * and it used to run on the main thread in the middle of the start. On a worker it runs on the other
 * core: main.ts starts it (`startKeystoreRead`) before it loads the app's modules, which keep the main
 * thread busy for longer than the read takes, and `loadKeySet` (keystore.ts) takes the result. The
 * module imports only Node's built-ins, so main.ts can start the read before anything else loads.
 *
 * The worker's code is a string so it runs the same from `src/` (tests) and `dist/`; it loads forge
 * from the path resolved here. It posts each private key's PKCS8 DER by alias (friendlyName), or
 * forge's error message: keystore.ts turns either into keys or a `KeystoreError`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** `MANAGEMENTPORTAL_OAUTH_KEY_STORE`'s default. */
export const DEFAULT_KEY_STORE = 'config/keystore.p12';
/** Where the reference's Docker image and helm charts mount the keystore. */
export const REFERENCE_KEY_STORE = '/mp-includes/config/keystore.p12';

/** The keystore file to read: the configured one, or the reference's mount point when the default is absent (drop-in). */
export function keyStoreFile(configured: string): string {
  return configured === DEFAULT_KEY_STORE && !existsSync(DEFAULT_KEY_STORE) && existsSync(REFERENCE_KEY_STORE)
    ? REFERENCE_KEY_STORE : configured;
}

/**
 * The worker swaps two of forge's derivations for Node's. The MAC's key (below). And PBKDF2: PKCS12
 * files of keytool and OpenSSL 3 encrypt their bags with PBES2 (PBKDF2-HMAC-SHA256, 10,000
 * iterations or more), and forge hands its own digest object to PBKDF2, which then never takes its
 * native path: in this worker forge's PBKDF2 is Node's (OpenSSL's) instead, which derives the same
 * bytes (the password and salt go in as forge's binary strings, one byte a character; a password
 * with characters above U+00FF, which forge would not reduce to a byte, keeps forge's own).
 * forge models RSA keys (bag.key) but not EC keys: those stay as PrivateKeyInfo ASN.1.
 */
const READER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { createHash, pbkdf2Sync } = require('node:crypto');
const forge = require(workerData.forge);
const NATIVE_DIGESTS = new Set(['sha1', 'sha224', 'sha256', 'sha384', 'sha512']);
const ownPbkdf2 = forge.pkcs5.pbkdf2;
forge.pkcs5.pbkdf2 = (p, s, c, dkLen, md, callback) => {
  const algorithm = md && md.algorithm;
  if (callback !== undefined || typeof algorithm !== 'string' || !NATIVE_DIGESTS.has(algorithm) || !/^[\\x00-\\xff]*$/.test(p)) {
    return ownPbkdf2(p, s, c, dkLen, md, callback);
  }
  return pbkdf2Sync(Buffer.from(p, 'binary'), Buffer.from(s, 'binary'), c, dkLen, algorithm).toString('binary');
};
// The MAC's key: PKCS12 key derivation (RFC 7292 appendix B.2) with Node's hashes, the same bytes
// as forge's (keytool's files take 10,000 rounds of SHA-256: ~60 ms in forge's JavaScript).
const ownGenerateKey = forge.pkcs12.generateKey;
forge.pkcs12.generateKey = (password, salt, id, iter, n, md) => {
  const algorithm = md ? md.algorithm : 'sha1';
  if (!NATIVE_DIGESTS.has(algorithm) || !(iter >= 1) || (password !== null && password !== undefined && typeof password !== 'string')) {
    return ownGenerateKey(password, salt, id, iter, n, md);
  }
  const u = md ? md.digestLength : 20;
  const v = md ? md.blockLength : 64;
  // The password as forge takes it: UTF-16 code units, big-endian, and a terminating zero.
  const pass = Buffer.alloc(password === null || password === undefined ? 0 : 2 * password.length + 2);
  for (let i = 0; i < pass.length / 2 - 1; i++) pass.writeUInt16BE(password.charCodeAt(i), 2 * i);
  const saltBytes = Buffer.from(salt.bytes(), 'binary');
  const repeat = (bytes, length) => {
    const out = Buffer.alloc(length);
    for (let i = 0; i < length; i++) out[i] = bytes[i % bytes.length];
    return out;
  };
  const D = Buffer.alloc(v, id);
  const I = Buffer.concat([repeat(saltBytes, v * Math.ceil(saltBytes.length / v)), repeat(pass, v * Math.ceil(pass.length / v))]);
  const blocks = [];
  for (let i = 0; i < Math.ceil(n / u); i++) {
    let a = createHash(algorithm).update(D).update(I).digest();
    for (let round = 1; round < iter; round++) a = createHash(algorithm).update(a).digest();
    blocks.push(a);
    const B = repeat(a, v);
    for (let j = 0; j < I.length; j += v) {
      let x = 0x1ff;
      for (let l = v - 1; l >= 0; l--) {
        x >>= 8;
        x += B[l] + I[j + l];
        I[j + l] = x & 0xff;
      }
    }
  }
  return new forge.util.ByteBuffer(Buffer.concat(blocks).subarray(0, n).toString('binary'));
};
try {
  const der = Buffer.from(workerData.bytes).toString('binary');
  const p12 = forge.pkcs12.pkcs12FromAsn1(forge.asn1.fromDer(der), false, workerData.password);
  const bags = (type) => p12.getBags({ bagType: type })[type] || [];
  const entries = [];
  for (const bag of [...bags(forge.pki.oids.pkcs8ShroudedKeyBag), ...bags(forge.pki.oids.keyBag)]) {
    const alias = bag.attributes.friendlyName && bag.attributes.friendlyName[0];
    if (typeof alias !== 'string') continue;
    const asn1 = bag.key ? forge.pki.wrapRsaPrivateKey(forge.pki.privateKeyToAsn1(bag.key)) : bag.asn1;
    entries.push([alias, Buffer.from(forge.asn1.toDer(asn1).getBytes(), 'binary')]);
  }
  parentPort.postMessage({ entries });
} catch (err) {
  parentPort.postMessage({ error: String((err && err.message) || err) });
}
`;

/** Each private key's PKCS8 DER by alias, or forge's message when the file could not be read. */
export type KeystoreReadResult = { entries: [alias: string, der: Uint8Array][] } | { error: string };

/** A read of one keystore file with one password, under way. */
export interface KeystoreRead {
  file: string;
  password: string;
  /** Never rejects: a failure is `{ error }`, reported by whoever uses the result. */
  result: Promise<KeystoreReadResult>;
}

/** Starts reading `file` (which must exist) with `password` on a worker thread. */
export function startKeystoreRead(file: string, password: string): KeystoreRead {
  const result = new Promise<KeystoreReadResult>((resolve) => {
    let worker: Worker;
    try {
      const workerData = { forge: createRequire(import.meta.url).resolve('node-forge'), bytes: readFileSync(file), password };
      worker = new Worker(READER_SOURCE, { eval: true, workerData });
    } catch (err) {
      resolve({ error: (err as Error).message });
      return;
    }
    worker.once('message', resolve);
    worker.once('error', (err) => resolve({ error: err.message }));
    // After a message this changes nothing (a promise settles once).
    worker.once('exit', (code) => resolve({ error: `the keystore reader exited with code ${code}` }));
  });
  return { file, password, result };
}

/**
 * main.ts: the read of the keystore the configuration names, started before the app's modules load.
 * Undefined when there is nothing to read (no file, no password): `loadKeySet` reports that.
 */
export function prefetchKeystore(configuredFile: string, password: string): KeystoreRead | undefined {
  const file = keyStoreFile(configuredFile);
  return password && existsSync(file) ? startKeystoreRead(file, password) : undefined;
}
