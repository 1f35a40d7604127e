// Token ids (`jti`, 20 random bytes in base64url): drawn from a 4 KiB pooled buffer, as
// `newJti` in src/management/oauth/token-issuer.ts did, against one `randomBytes(20)` per id.
// Alternating rounds, median ns per id; quiet, then with a worker thread signing ES256 in a loop
// (as the crypto worker does under load: ECDSA draws its nonce from the same OpenSSL generator).
//   node bench/jti.mjs [rounds=7] [idsPerRound=200000]
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { Worker } from 'node:worker_threads';

const rounds = Number(process.argv[2] ?? 7);
const ids = Number(process.argv[3] ?? 200_000);

const JTI_BYTES = 20;
let pool = Buffer.alloc(0);
let offset = 0;
function pooled() {
  if (offset + JTI_BYTES > pool.length) {
    pool = randomBytes(JTI_BYTES * 204);
    offset = 0;
  }
  offset += JTI_BYTES;
  return pool.toString('base64url', offset - JTI_BYTES, offset);
}
const perId = () => randomBytes(JTI_BYTES).toString('base64url');

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function time(make) {
  let sink = 0;
  const start = process.hrtime.bigint();
  for (let i = 0; i < ids; i++) sink += make().length;
  const ns = Number(process.hrtime.bigint() - start) / ids;
  if (sink !== ids * 27) throw new Error('a token id is not 27 characters');
  return ns;
}

function measure(label) {
  const result = { pooled: [], perId: [] };
  time(pooled); time(perId); // warm-up
  for (let r = 0; r < rounds; r++) {
    // Alternate which goes first, so a drift of the shared machine hits both alike.
    const order = r % 2 === 0 ? [['pooled', pooled], ['perId', perId]] : [['perId', perId], ['pooled', pooled]];
    for (const [name, make] of order) result[name].push(time(make));
  }
  const p = median(result.pooled);
  const q = median(result.perId);
  console.log(JSON.stringify({
    label, rounds, ids,
    pooledNsPerId: Math.round(p), randomBytesNsPerId: Math.round(q),
    savedNsPerId: Math.round(q - p),
    pooledRounds: result.pooled.map(Math.round), randomBytesRounds: result.perId.map(Math.round),
  }));
}

measure('quiet');

const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const signer = new Worker(`
  const { workerData, parentPort } = require('node:worker_threads');
  const { sign } = require('node:crypto');
  const data = Buffer.from('x'.repeat(300));
  let stop = false;
  parentPort.on('message', () => { stop = true; });
  (function loop() {
    for (let i = 0; i < 200; i++) sign('sha256', data, { key: workerData.key, dsaEncoding: 'ieee-p1363' });
    if (!stop) setImmediate(loop); else process.exit(0);
  })();
`, { eval: true, workerData: { key: privateKey.export({ format: 'pem', type: 'pkcs8' }) } });
await new Promise((r) => setTimeout(r, 200));
measure('ES256 signing worker busy');
signer.postMessage('stop');
await new Promise((r) => signer.once('exit', r));
