// Cold start to the first answered request, and RSS at idle, for the dev profile (PGlite, demo
// data) and the prod profile (PostgreSQL). Target (prod): ≤ 1.5 s and ≤ 150 MB RSS at idle.
//   node bench/startup.mjs [runs=5]
import { freshDatabase, machine, startService } from './lib.mjs';

const runs = Number(process.argv[2] ?? 5);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function measure(label, env) {
  const startups = [];
  const rss = [];
  for (let i = 0; i < runs; i++) {
    const service = await startService(env);
    startups.push(service.startupMs);
    await new Promise((r) => setTimeout(r, 2000)); // idle
    rss.push(service.rssMiB());
    await service.stop();
  }
  return { profile: label, runs, startupMsMedian: Math.round(median(startups)), startupMsMax: Math.round(Math.max(...startups)), idleRssMiBMedian: Math.round(median(rss)) };
}

const db = await freshDatabase('radar_bench_startup');
try {
  const dev = await measure('dev (PGlite, demo data)', { PROFILE: 'dev' });
  const prod = await measure('prod (PostgreSQL)', { PROFILE: 'prod', DATABASE_URL: db.url, RADAR_ADMIN_PASSWORD: 'bench-secret' });
  console.log(JSON.stringify({ bench: 'startup', date: new Date().toISOString().slice(0, 10), machine: machine(), results: [dev, prod] }, null, 2));
} finally {
  await db.drop();
}
