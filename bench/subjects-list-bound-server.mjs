// The bound for the subject-list benchmark: a bare Fastify route that runs the statements our
// service runs per `GET /managementportal/api/projects/radar/subjects?size=20` at steady state
// (seen with log_statement = all on PostgreSQL 15, 2026-11-25), with postgres.js, the same pool
// size and the same parameters, and answers the same JSON:
//  1. the bearer token's user with its roles (bearer authentication's activated check,
//     src/management/security/bearer-auth.ts → findUserWithRoles),
//  2. then at once: the project (404 check), the page (keyset after `last.id`, roles and sources
//     as JSON sub-selects; the subjects' queries module, listSubjects) and the total count
//     (countSubjects; reused for 2 s when ≥ 5,000, as the service's subject-count cache does).
// When the service's statements change, change them here too (the benchmark checks that both
// answers are equal, not that the SQL is).
// Not done here (it is our overhead that the ratio measures): verifying the token (our verified
// tokens are remembered, so this only decodes its payload), permission checks, query building,
// the request and response schemas.
// Started by bench/subjects-list.mjs: node subjects-list-bound-server.mjs port databaseUrl poolSize; prints its port.
import Fastify from 'fastify';
import postgres from 'postgres';

const [port, databaseUrl, poolSize] = process.argv.slice(2);
const sql = postgres(databaseUrl, { max: Number(poolSize), onnotice: () => {}, connection: { application_name: 'subjects-list-bound' } });
const AUTHORITY = 'ROLE_PARTICIPANT';
const COUNT_TTL_MS = 2000;
const COUNT_CACHED_FROM = 5000;

const userWithRoles = (login) => sql`
    select u.id, u.login, u.activated, coalesce((select json_agg(json_build_object(
    'authority', r.authority_name, 'projectName', p.project_name, 'organizationName', o.name, 'projectOrganization', po.name) order by r.id)
  from management.role_users ru join management.roles r on r.id = ru.role_id
  left join management.projects p on p.id = r.project_id
  left join management.organizations o on o.id = r.organization_id
  left join management.organizations po on po.id = p.organization_id
  where ru.user_id = u.id), '[]'::json) as roles, '[]'::json as sources
    from management.users u where u.login = ${login}`;

const projectByName = (name) => sql`select "management"."projects"."id", "management"."projects"."project_name", "management"."organizations"."name" from "management"."projects" left join "management"."organizations" on "management"."organizations"."id" = "management"."projects"."organization_id" where "management"."projects"."project_name" = ${name} limit ${1}`;

const countSubjects = (projectName) => sql`select count(*) from "management"."role_users" where "management"."role_users"."role_id" = any(array(select "management"."roles"."id" from "management"."roles" where "management"."roles"."authority_name" in (${AUTHORITY}) and "management"."roles"."project_id" = (select "management"."projects"."id" from "management"."projects" where "management"."projects"."project_name" = ${projectName})))`;

const LIST_COLUMNS = sql`"management"."subjects"."id", "management"."subjects"."user_id", "management"."users"."login", "management"."users"."activated", "management"."subjects"."removed", "management"."subjects"."external_link", "management"."subjects"."external_id", "management"."subjects"."date_of_birth", "management"."subjects"."enrollment_date", "management"."subjects"."person_name", "management"."subjects"."attributes", "management"."subjects"."group_id", "management"."groups"."name", "management"."subjects"."created_by", "management"."subjects"."created_date", "management"."subjects"."last_modified_by", "management"."subjects"."last_modified_date", (select coalesce(json_agg(json_build_object(
      'id', "management"."roles"."id", 'authorityName', "management"."roles"."authority_name", 'organizationId', "management"."roles"."organization_id",
      'organizationName', "role_organizations"."name", 'projectId', "management"."roles"."project_id", 'projectName', "role_projects"."project_name"
    ) order by "management"."roles"."id"), '[]'::json)
    from "management"."role_users" join "management"."roles" on "management"."roles"."id" = "management"."role_users"."role_id"
    left join "management"."projects" as "role_projects" on "role_projects"."id" = "management"."roles"."project_id"
    left join "management"."organizations" as "role_organizations" on "role_organizations"."id" = "management"."roles"."organization_id"
    where "management"."role_users"."user_id" = "management"."subjects"."user_id") as roles, (select coalesce(json_agg(json_build_object(
      'id', "management"."sources"."id", 'sourceTypeId', "management"."source_types"."id", 'sourceTypeProducer', "management"."source_types"."producer",
      'sourceTypeModel', "management"."source_types"."model", 'sourceTypeCatalogVersion', "management"."source_types"."catalog_version",
      'expectedSourceName', "management"."sources"."expected_source_name", 'sourceId', "management"."sources"."source_id", 'sourceName', "management"."sources"."source_name",
      'assigned', "management"."sources"."assigned", 'attributes', "management"."sources"."attributes"
    ) order by "management"."sources"."id"), '[]'::json)
    from "management"."sources" left join "management"."source_types" on "management"."source_types"."id" = "management"."sources"."source_type_id"
    where "management"."sources"."subject_id" = "management"."subjects"."id" and not "management"."sources"."deleted") as sources`;
const LISTED = (projectName) => sql`exists (select 1 from "management"."role_users" where "management"."role_users"."user_id" = "management"."subjects"."user_id" and "management"."role_users"."role_id" = any(array(select "management"."roles"."id" from "management"."roles" where "management"."roles"."authority_name" in (${AUTHORITY}) and "management"."roles"."project_id" = (select "management"."projects"."id" from "management"."projects" where "management"."projects"."project_name" = ${projectName}))))`;
const FROM = sql`"management"."subjects" inner join "management"."users" on "management"."users"."id" = "management"."subjects"."user_id" left join "management"."groups" on "management"."groups"."id" = "management"."subjects"."group_id"`;

const listPage = (projectName, lastId, size) => (lastId === undefined
  ? sql`select ${LIST_COLUMNS} from ${FROM} where ${LISTED(projectName)} order by "management"."subjects"."id" asc limit ${size}`
  : sql`select ${LIST_COLUMNS} from ${FROM} where (${LISTED(projectName)} and "management"."subjects"."id" > ${lastId}) order by "management"."subjects"."id" asc limit ${size}`);

const counts = new Map(); // project → { value: Promise<number>, expiresAt }
function countOf(projectName) {
  const hit = counts.get(projectName);
  if (hit && hit.expiresAt > Date.now()) return hit.value;
  const entry = { value: countSubjects(projectName).then(([row]) => Number(row.count)), expiresAt: Date.now() + COUNT_TTL_MS };
  counts.set(projectName, entry);
  entry.value.then((n) => { if (n < COUNT_CACHED_FROM) counts.delete(projectName); }, () => counts.delete(projectName));
  return entry.value;
}

const status = (activated, removed) => (removed ? (activated ? 'INVALID' : 'DISCONTINUED') : (activated ? 'ACTIVATED' : 'DEACTIVATED'));
/** roles/dto.ts roleDto: its key order, null fields left out. */
const roleDto = (r) => Object.fromEntries(Object.entries({
  id: r.id, organizationId: r.organizationId, organizationName: r.organizationName, projectId: r.projectId, projectName: r.projectName, authorityName: r.authorityName,
}).filter(([, v]) => v !== null));

const app = Fastify({ logger: false });
app.get('/managementportal/api/projects/:projectName/subjects', async (req, reply) => {
  const { projectName } = req.params;
  const size = Number(req.query.size ?? 20);
  const lastId = req.query['last.id'] !== undefined ? Number(req.query['last.id']) : undefined;
  const token = (req.headers.authorization ?? '').slice('Bearer '.length);
  const login = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8') || '{}').user_name;
  const [user] = await userWithRoles(login ?? '');
  if (!user?.activated) return reply.code(401).send({ error: 'unauthorized' });
  const [[project], rows, total] = await Promise.all([projectByName(projectName), listPage(projectName, lastId, size), countOf(projectName)]);
  if (!project) return reply.code(404).send({ error: 'not found' });
  reply.header('x-total-count', String(total));
  const last = rows.at(-1);
  if (last) {
    const next = new URLSearchParams({ authority: AUTHORITY, size: String(size), page: '0', 'last.id': String(last.id), 'last.login': last.login });
    if (last.external_id) next.append('last.externalId', last.external_id);
    reply.header('link', `<${req.url.split('?')[0]}?${next}>; rel="next"`);
  }
  // The DTO's fields in its order; ids are bigint, which postgres.js hands over as strings.
  return rows.map((r) => ({
    id: Number(r.id), login: r.login, externalLink: r.external_link, externalId: r.external_id, status: status(r.activated, r.removed),
    group: r.name, dateOfBirth: r.date_of_birth, enrollmentDate: r.enrollment_date ? r.enrollment_date.toISOString() : null,
    personName: r.person_name, roles: r.roles.map(roleDto), sources: r.sources, attributes: r.attributes,
  }));
});
await app.listen({ host: '127.0.0.1', port: Number(port) });
process.stdout.write(`${app.server.address().port}\n`);
