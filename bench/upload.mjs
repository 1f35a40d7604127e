// File upload (issue 33 item 1): `POST /projects/radar/users/sub-1/files/topics/bench/upload` with a
// 1 MB file (multipart, part `file`) at `connections` connections, into `s3` storage (s3rver, the
// tests' S3 server, in a process of its own: bench/upload-s3-server.mjs) and into `local` storage
// (a temporary folder), prod profile on PostgreSQL, app-server security on (a client-credentials
// token with MEASUREMENT.CREATE). The bound, in the same run: the S3 server's own PUT rate, 1 MB
// PUTs straight to the same s3rver at the same connections (anonymous, through autocannon, to one
// key), `fresh`: the same PUTs each to a new key shaped like the service's (what s3rver spends on
// the new objects an upload creates), and `signed`: the AWS SDK's signed PutObject of 1 MB from
// this process at the same concurrency. They
// alternate in rounds; the medians are the figures, with ours / bound for s3 (target ≥ 0.7), and
// the CPU per request of the service and of the S3 server.
// Then the memory check: one 100 MB upload (RADAR_FILE_UPLOAD_MAX_SIZE raised to 200MB) streamed to
// the s3 service, its RSS sampled every 20 ms: the rise over the RSS before it (target < 30 MB),
// and the object's size in the store.
// Any non-2xx answer fails the run (exit 1).
//   npm run build && node bench/upload.mjs [seconds=5] [connections=10] [rounds=ROUNDS or 3]
import { randomBytes, randomUUID } from 'node:crypto';
import { appendFileSync, copyFileSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { cpuMeter } from './cpu-usage.mjs';
import {
  alternatingRounds, assertAll2xx, BenchFailure, expect2xx, exitOnBenchFailure, freshDatabase, machine, median, prodEnv, roundsArg, startScript, startService,
} from './lib.mjs';

exitOnBenchFailure();
const seconds = Number(process.argv[2] ?? 5);
const connections = Number(process.argv[3] ?? 10);
const rounds = roundsArg(4);
const FILE_BYTES = 1_000_000;
const BIG_BYTES = 100 * 1024 * 1024;
const PATH = '/projects/radar/users/sub-1/files/topics/bench/upload';
const BOUNDARY = 'benchboundary';

const work = mkdtempSync(join(tmpdir(), 'bench-upload-'));
// The reference's clients, and one with MEASUREMENT.CREATE by client credentials (the uploader).
const clients = join(work, 'oauth_client_details.csv');
copyFileSync(fileURLToPath(new URL('../config/oauth_client_details.csv', import.meta.url)), clients);
appendFileSync(clients, 'bench_uploader;res_AppServer;secret;MEASUREMENT.CREATE;client_credentials;;;43200;259200;{};\n');

const file = randomBytes(FILE_BYTES);
const multipart = Buffer.concat([
  Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="bench.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`),
  file,
  Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
]);

const db = await freshDatabase('radar_bench_upload');
const stops = [];
let summary;
try {
  const s3 = await startScript('upload-s3-server.mjs', '', join(work, 's3'));
  stops.push(() => s3.stop());
  const common = {
    ...prodEnv(db.url, 10, 'bench-admin'), MANAGEMENTPORTAL_OAUTH_CLIENTS_FILE: clients, QUESTIONNAIRE_SCHEDULE_INTERVAL_SECONDS: '0',
    SCHEDULER_ENABLED: 'false', RADAR_FILE_UPLOAD_ENABLED: 'true', RADAR_FILE_UPLOAD_MAX_SIZE: '200MB',
  };
  const s3Service = await startService({
    ...common, RADAR_STORAGE_TYPE: 's3', RADAR_STORAGE_S3_URL: s3.url, RADAR_STORAGE_S3_ACCESS_KEY: 'S3RVER', RADAR_STORAGE_S3_SECRET_KEY: 'S3RVER',
  });
  stops.push(() => s3Service.stop());
  const localService = await startService({ ...common, RADAR_STORAGE_TYPE: 'local', RADAR_STORAGE_LOCAL_PATH: join(work, 'local') });
  stops.push(() => localService.stop());

  const granted = await expect2xx('client credentials grant', fetch(`${s3Service.base}/managementportal/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from('bench_uploader:secret').toString('base64')}` },
    body: new URLSearchParams({ grant_type: 'client_credentials' }),
  }));
  const uploadHeaders = { authorization: `Bearer ${(await granted.json()).access_token}`, 'content-type': `multipart/form-data; boundary=${BOUNDARY}` };

  // Each answers, and the s3 one stores exactly the file.
  const probe = await expect2xx('probe upload', fetch(`${s3Service.base}${PATH}`, { method: 'POST', headers: uploadHeaders, body: multipart }));
  const key = probe.headers.get('location');
  const stored = Buffer.from(await (await expect2xx('stored object', fetch(`${s3.url}/radar/${key}`))).arrayBuffer());
  if (!stored.equals(file)) throw new BenchFailure(`the object under ${key} is not the file sent (${stored.length} bytes)`);
  await expect2xx('probe local upload', fetch(`${localService.base}${PATH}`, { method: 'POST', headers: uploadHeaders, body: multipart }));

  const targets = {
    s3: { url: `${s3Service.base}${PATH}`, method: 'POST', headers: uploadHeaders, body: multipart, pid: s3Service.pid },
    local: { url: `${localService.base}${PATH}`, method: 'POST', headers: uploadHeaders, body: multipart, pid: localService.pid },
    // The bound: the same store taking 1 MB PUTs straight (anonymous; s3rver checks no signature).
    bound: { url: `${s3.url}/radar/bound/object`, method: 'PUT', headers: { 'content-type': 'application/octet-stream' }, body: file, pid: s3.pid },
    // The same PUTs, each to a new key shaped like the service's (s3rver writes a new file and
    // its metadata in a growing folder instead of overwriting one object): what the store itself
    // spends on the objects the upload creates.
    fresh: {
      url: s3.url, pid: s3.pid,
      requests: [{
        method: 'PUT', headers: { 'content-type': 'application/octet-stream' }, body: file,
        setupRequest: (req) => ({ ...req, path: `/radar/fresh/radar/sub-1/bench/20261128/20261128100000_${randomUUID()}.bin` }),
      }],
    },
  };
  // CPU seconds of a process so far, so that the S3 server's share of an upload through the
  // service counts too: on a loaded shared host the CPU per request says more than req/s.
  const cpuSeconds = (pid) => {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  };
  const load = async (name) => {
    const { pid, ...request } = targets[name];
    assertAll2xx(`${name} warm-up`, await autocannon({ ...request, connections, amount: connections * 3 }));
    const cpu = cpuMeter(pid);
    const s3Before = cpuSeconds(s3.pid);
    const r = await autocannon({ ...request, connections, duration: seconds });
    const coresUsed = cpu();
    const s3CpuMsPerRequest = Number((((cpuSeconds(s3.pid) - s3Before) * 1000) / r.requests.total).toFixed(2));
    assertAll2xx(name, r);
    const requestsPerSecond = Number((r.requests.total / r.duration).toFixed(1));
    const serviceCpuMsPerRequest = name === 'bound' || name === 'fresh' ? 0 : Number(((coresUsed.service * 1000) / requestsPerSecond).toFixed(2));
    return {
      requestsPerSecond, latencyMs: { p50: r.latency.p50, p99: r.latency.p99 }, coresUsed,
      serviceCpuMsPerRequest, s3CpuMsPerRequest, totalCpuMsPerRequest: Number((serviceCpuMsPerRequest + s3CpuMsPerRequest).toFixed(2)),
    };
  };
  // A second bound: signed PutObject calls of the AWS SDK from this process (what any S3 client
  // sends, and what the service sends), `connections` at a time for `seconds`.
  const sdk = new S3Client({
    endpoint: s3.url, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    requestChecksumCalculation: 'WHEN_REQUIRED',
  });
  stops.push(async () => sdk.destroy());
  const signedLoad = async () => {
    const put = (i) => sdk.send(new PutObjectCommand({ Bucket: 'radar', Key: `signed/${i % 100}`, Body: file }));
    for (let i = 0; i < connections * 3; i++) await put(i);
    const s3Before = cpuSeconds(s3.pid);
    const started = performance.now();
    let done = 0;
    await Promise.all(Array.from({ length: connections }, async () => {
      while (performance.now() - started < seconds * 1000) await put(done++);
    }));
    const elapsed = (performance.now() - started) / 1000;
    const s3CpuMsPerRequest = Number((((cpuSeconds(s3.pid) - s3Before) * 1000) / done).toFixed(2));
    return { requestsPerSecond: Number((done / elapsed).toFixed(1)), s3CpuMsPerRequest, totalCpuMsPerRequest: s3CpuMsPerRequest };
  };
  const results = await alternatingRounds(rounds, {
    s3: () => load('s3'), local: () => load('local'), bound: () => load('bound'), fresh: () => load('fresh'), signed: signedLoad,
  });
  for (const r of results) {
    r.s3VsBound = Number((r.s3.requestsPerSecond / r.bound.requestsPerSecond).toFixed(2));
    r.s3VsFresh = Number((r.s3.requestsPerSecond / r.fresh.requestsPerSecond).toFixed(2));
    r.s3VsSigned = Number((r.s3.requestsPerSecond / r.signed.requestsPerSecond).toFixed(2));
  }
  const medianOf = (f, digits = 1) => Number(median(results.map(f)).toFixed(digits));

  // 100 MB in one upload, streamed in 64 KiB chunks; RSS sampled throughout.
  const rssBefore = s3Service.rssMiB();
  let rssPeak = rssBefore;
  const sampler = setInterval(() => { rssPeak = Math.max(rssPeak, s3Service.rssMiB()); }, 20);
  const chunk = randomBytes(64 * 1024);
  const body = (async function* big() {
    yield Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`);
    for (let sent = 0; sent < BIG_BYTES; sent += chunk.length) yield chunk;
    yield Buffer.from(`\r\n--${BOUNDARY}--\r\n`);
  })();
  const startedBig = performance.now();
  const big = await expect2xx('100 MB upload', fetch(`${s3Service.base}${PATH}`, { method: 'POST', headers: uploadHeaders, body, duplex: 'half' }));
  const bigMs = performance.now() - startedBig;
  clearInterval(sampler);
  rssPeak = Math.max(rssPeak, s3Service.rssMiB());
  const bigKey = big.headers.get('location');
  const bigSize = statSync(join(work, 's3', 'radar', `${bigKey}._S3rver_object`), { throwIfNoEntry: false })?.size
    ?? Number((await fetch(`${s3.url}/radar/${bigKey}`, { method: 'HEAD' })).headers.get('content-length'));
  if (bigSize !== BIG_BYTES) throw new BenchFailure(`the 100 MB object holds ${bigSize} bytes`);

  summary = {
    bench: 'upload', date: new Date().toISOString().slice(0, 10), machine: machine(), fileBytes: FILE_BYTES, connections, seconds, rounds: results,
    median: {
      s3: medianOf((r) => r.s3.requestsPerSecond), local: medianOf((r) => r.local.requestsPerSecond), bound: medianOf((r) => r.bound.requestsPerSecond),
      signed: medianOf((r) => r.signed.requestsPerSecond), fresh: medianOf((r) => r.fresh.requestsPerSecond),
      s3VsBound: medianOf((r) => r.s3VsBound, 2),
      s3VsFresh: medianOf((r) => r.s3VsFresh, 2),
      s3VsSigned: medianOf((r) => r.s3VsSigned, 2),
      localVsBound: medianOf((r) => r.local.requestsPerSecond / r.bound.requestsPerSecond, 2),
      // CPU per upload (service + S3 server) against the S3 server's own per PUT: what the work
      // allows when the host, not the servers, is the limit.
      cpuMsPerRequest: {
        s3: medianOf((r) => r.s3.totalCpuMsPerRequest, 2), s3Service: medianOf((r) => r.s3.serviceCpuMsPerRequest, 2),
        s3Server: medianOf((r) => r.s3.s3CpuMsPerRequest, 2), local: medianOf((r) => r.local.totalCpuMsPerRequest, 2), bound: medianOf((r) => r.bound.totalCpuMsPerRequest, 2),
        fresh: medianOf((r) => r.fresh.totalCpuMsPerRequest, 2),
        signedS3Server: medianOf((r) => r.signed.s3CpuMsPerRequest, 2),
      },
    },
    bigUpload: {
      bytes: BIG_BYTES, seconds: Number((bigMs / 1000).toFixed(1)), megabytesPerSecond: Number((BIG_BYTES / 1e6 / (bigMs / 1000)).toFixed(1)),
      rssBeforeMiB: Number(rssBefore.toFixed(1)), rssPeakMiB: Number(rssPeak.toFixed(1)), rssRiseMiB: Number((rssPeak - rssBefore).toFixed(1)),
    },
    target: { s3VsBound: 0.7, rssRiseMiB: 30 },
  };
} finally {
  for (const stop of stops.reverse()) await stop();
  await db.drop();
  rmSync(work, { recursive: true, force: true });
}
console.log(JSON.stringify(summary, null, 2));
