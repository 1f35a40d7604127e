import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
const dir = mkdtempSync('/tmp/upl/exp-');
const s3 = spawn(process.execPath, ['bench/upload-s3-server.mjs', '39997', dir], { stdio: ['ignore', 'pipe', 'inherit'] });
await new Promise((r) => s3.stdout.once('data', r));
const svc = spawn(process.execPath, ['dist/main.js'], { env: { ...process.env, PORT: '39996', LOG_LEVEL: 'warn', SCHEDULER_ENABLED: 'false', RADAR_FILE_UPLOAD_ENABLED: 'true', RADAR_STORAGE_S3_URL: 'http://127.0.0.1:39997', RADAR_STORAGE_S3_ACCESS_KEY: 'S3RVER', RADAR_STORAGE_S3_SECRET_KEY: 'S3RVER' }, stdio: ['ignore', 'ignore', 'ignore'] });
for (;;) { try { if ((await fetch('http://127.0.0.1:39996/actuator/health')).ok) break; } catch {} await new Promise((r) => setTimeout(r, 200)); }
const B = 'bb';
const file = randomBytes(1_000_000);
const body = Buffer.concat([Buffer.from(`--${B}\r\nContent-Disposition: form-data; name="file"; filename="x.bin"\r\n\r\n`), file, Buffer.from(`\r\n--${B}--\r\n`)]);
for (let i = 0; i < 2; i++) {
  const t0 = performance.now();
  const r = await fetch('http://127.0.0.1:39996/projects/p/users/s/files/topics/t/upload', { method: 'POST', headers: { 'content-type': `multipart/form-data; boundary=${B}` }, body });
  await r.arrayBuffer();
  const t1 = performance.now();
  const r2 = await fetch(`http://127.0.0.1:39997/radar/raw/${i}`, { method: 'PUT', body: file }); await r2.arrayBuffer();
  console.log(r.status, 'service', (t1 - t0).toFixed(0), 'ms; raw put', (performance.now() - t1).toFixed(0), 'ms');
}
import { readFileSync } from 'node:fs';
const cpu = (pid) => { const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' '); return (Number(f[11]) + Number(f[12])) / 100; };
async function run(label, fn, n = 150, conc = 10) {
  const c0 = [cpu(svc.pid), cpu(s3.pid)]; const t0 = performance.now(); let i = 0;
  await Promise.all(Array.from({ length: conc }, async () => { while (i++ < n) await fn(i); }));
  const s = (performance.now() - t0) / 1000;
  console.log(label, (n / s).toFixed(1), 'req/s; cores service', ((cpu(svc.pid) - c0[0]) / s).toFixed(2), 's3rver', ((cpu(s3.pid) - c0[1]) / s).toFixed(2));
}
const up = () => fetch('http://127.0.0.1:39996/projects/p/users/s/files/topics/t/upload', { method: 'POST', headers: { 'content-type': `multipart/form-data; boundary=${B}` }, body }).then((r) => { if (r.status !== 201) throw new Error(r.status); return r.arrayBuffer(); });
const raw = (i) => fetch(`http://127.0.0.1:39997/radar/raw/${i}`, { method: 'PUT', body: file }).then((r) => r.arrayBuffer());
await run('service', up); await run('raw', raw); await run('service', up); await run('raw', raw);
svc.kill(); s3.kill();
