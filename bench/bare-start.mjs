// The bound of the prod start-up (issue 30 item 5): the same stack started bare, as its own
// process. Fastify (with a pino logger at warn, as the service logs in the benchmark) listening,
// postgres.js connected with one query answered, firebase-admin loaded and its messaging built
// for the FCM emulator host as the service builds it, and the PKCS12 keystore read with node-forge
// (store and key password the same, as the service reads it). `GET /actuator/health` answers 200
// after a `select 1`, as the service's health does. bench/startup.mjs spawns it as it spawns
// dist/main.js (PORT, DATABASE_URL, FCM_EMULATOR_HOST, MANAGEMENTPORTAL_OAUTH_KEY_STORE[_PASSWORD]).
//   node bench/bare-start.mjs
import { createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Agent } from 'node:http';
import { connect } from 'node:net';
import Fastify from 'fastify';
import postgres from 'postgres';
import forge from 'node-forge';
import { initializeApp } from 'firebase-admin/app';
import { getMessaging } from 'firebase-admin/messaging';

const env = process.env;

// The keystore: every private key by alias, as DER → KeyObject (what the service signs with).
const p12 = forge.pkcs12.pkcs12FromAsn1(
  forge.asn1.fromDer(readFileSync(env.MANAGEMENTPORTAL_OAUTH_KEY_STORE).toString('binary')), false, env.MANAGEMENTPORTAL_OAUTH_KEY_STORE_PASSWORD,
);
const keyBag = forge.pki.oids.pkcs8ShroudedKeyBag;
const keys = new Map();
for (const bag of p12.getBags({ bagType: keyBag })[keyBag] ?? []) {
  const der = Buffer.from(forge.asn1.toDer(bag.asn1).getBytes(), 'binary');
  keys.set(bag.attributes.friendlyName?.[0], createPrivateKey({ key: der, format: 'der', type: 'pkcs8' }));
}
if (keys.size === 0) throw new Error('no key in the keystore');

// firebase-admin for the emulator host: plain TCP to host:port, HTTP/1.1 transport (src/appserver/transmit/fcm.ts).
const [host, port] = [env.FCM_EMULATOR_HOST.slice(0, env.FCM_EMULATOR_HOST.lastIndexOf(':')), Number(env.FCM_EMULATOR_HOST.split(':').pop())];
class EmulatorAgent extends Agent {
  constructor() { super({ keepAlive: true }); this.protocol = 'https:'; }
  createConnection() { return connect({ host, port }); }
}
const firebase = initializeApp({ credential: { getAccessToken: async () => ({ access_token: 'emulator-token', expires_in: 3600 }) }, projectId: 'demo-radar', httpAgent: new EmulatorAgent() }, 'bare');
getMessaging(firebase).enableLegacyHttpTransport();

const sql = postgres(env.DATABASE_URL, { max: 10, onnotice: () => {} });
await sql`select 1`;

const app = Fastify({ logger: { level: 'warn' } });
app.get('/actuator/health', async () => {
  await sql`select 1`;
  return { status: 'UP' };
});
await app.listen({ host: '127.0.0.1', port: Number(env.PORT) });
process.on('SIGTERM', async () => {
  await app.close();
  await sql.end({ timeout: 1 });
  process.exit(0);
});
