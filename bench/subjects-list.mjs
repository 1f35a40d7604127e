// Subject list of a big project: GET /api/projects/radar/subjects?size=20 with 100,000 subjects
// on PostgreSQL (prod profile), 50 concurrent clients; the first page, and the last page reached
// by the keyset cursor (last.id / last.login) as the Link header gives it.
//   node bench/subjects-list.mjs [seconds=10] [connections=50] [subjects=100000]
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import postgres from 'postgres';
import { freshDatabase, machine, startService } from './lib.mjs';

const seconds = Number(process.argv[2] ?? 10);
const connections = Number(process.argv[3] ?? 50);
const count = Number(process.argv[4] ?? 100_000);
const CLIENTS = fileURLToPath(new URL('../config/oauth_client_details.csv', import.meta.url));
const ADMIN_PASSWORD = 'bench-admin';

const db = await freshDatabase('radar_bench_subjects');
const service = await startService({
  PROFILE: 'prod', DATABASE_URL: db.url, RADAR_ADMIN_PASSWORD: 'bench-secret',
  MANAGEMENTPORTAL_COMMON_ADMIN_PASSWORD: ADMIN_PASSWORD, MANAGEMENTPORTAL_OAUTH_CLIENTS_FILE: CLIENTS,
});

try {
  // Seed straight into the tables (the service has migrated them): one project, `count` participants.
  const sql = postgres(db.url, { max: 1, onnotice: () => {} });
  const seeded = performance.now();
  await sql.begin(async (tx) => {
    const [project] = await tx`insert into management.projects (project_name, description, location, organization_id)
      select 'radar', 'bench', 'here', id from management.organizations where name = 'main' returning id`;
    const [role] = await tx`insert into management.roles (authority_name, project_id) values ('ROLE_PARTICIPANT', ${project.id}) returning id`;
    await tx`insert into management.users (login, activated, lang_key, email)
      select 'bench-' || lpad(g::text, 7, '0'), true, 'en', null from generate_series(1, ${count}) g`;
    await tx`insert into management.role_users (user_id, role_id) select id, ${role.id} from management.users where login like 'bench-%'`;
    await tx`insert into management.subjects (user_id, external_id, person_name, enrollment_date, attributes)
      select id, 'EXT-' || login, 'Person ' || login, now(), '{}'::jsonb from management.users where login like 'bench-%'`;
  });
  await sql`analyze`;
  await sql.end();
  const seedMs = Math.round(performance.now() - seeded);

  const tokenRes = await fetch(`${service.base}/managementportal/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'password', client_id: 'ManagementPortalapp', username: 'admin', password: ADMIN_PASSWORD }),
  });
  const { access_token: token } = await tokenRes.json();
  const headers = { authorization: `Bearer ${token}` };
  const first = `${service.base}/managementportal/api/projects/radar/subjects?size=20`;

  // The cursor of the last page: the 20th-last subject in id order, as a Link "next" would carry it.
  const probe = await fetch(first, { headers });
  if (probe.status !== 200) throw new Error(`first page: ${probe.status} ${await probe.text()}`);
  const total = Number(probe.headers.get('x-total-count'));
  const sqlRead = postgres(db.url, { max: 1 });
  const [cursor] = await sqlRead`select s.id, u.login from management.subjects s join management.users u on u.id = s.user_id order by s.id desc offset 20 limit 1`;
  await sqlRead.end();
  const last = `${first}&last.id=${cursor.id}&last.login=${encodeURIComponent(cursor.login)}`;
  const lastPage = await (await fetch(last, { headers })).json();

  async function load(url) {
    await autocannon({ url, headers, connections, duration: 2 });
    const r = await autocannon({ url, headers, connections, duration: seconds });
    return { requestsPerSecond: Math.round(r.requests.average), non2xx: r.non2xx, errors: r.errors, latencyMs: { p50: r.latency.p50, p99: r.latency.p99 } };
  }
  const firstPage = await load(first);
  const lastPageLoad = await load(last);
  console.log(JSON.stringify({
    machine: machine(), date: new Date().toISOString(), subjects: count, seedMs, xTotalCount: total,
    lastPageItems: Array.isArray(lastPage) ? lastPage.length : lastPage, connections, seconds,
    firstPage, lastPage: lastPageLoad,
  }, null, 2));
} finally {
  await service.stop();
  await db.drop();
}
