/**
 * What moves from a ManagementPortal v2.1.x or v3.0.0 database (managementportal.md §7; v3.0.0 adds
 * only `radar_user.identity`, see `managementPortalSource`), table by table, in
 * the order their references need. Each spec's `select` reads the reference's tables (its map
 * tables `*_metadata` folded into one `attributes` object per row), `map` shapes the row for this
 * service's table (issue 32 item 2). The reference's `timestamp without time zone` columns hold
 * UTC (the reference's containers run in UTC) and are read as such.
 */
import type { EngineOptions, IdMap, Row, TableSpec, Tx } from './engine.js';

const utc = (col: string, as = col) => `(${col} at time zone 'UTC') as ${as}`;

/** Who made the first and the last revision of an entity (Envers: `<table>_aud` joined to `_revisions_info`). */
const auditJoins = (audTable: string, alias: string) => `
  left join lateral (select r.auditor, r."timestamp" from ${audTable} a join _revisions_info r on r.id = a.rev
    where a.id = ${alias}.id order by a.rev asc limit 1) created on true
  left join lateral (select r.auditor, r."timestamp" from ${audTable} a join _revisions_info r on r.id = a.rev
    where a.id = ${alias}.id order by a.rev desc limit 1) modified on true`;
const auditColumns = `coalesce(created.auditor, 'system') as created_by, (created."timestamp" at time zone 'UTC') as created_date,
  modified.auditor as last_modified_by, (modified."timestamp" at time zone 'UTC') as last_modified_date`;
const AUDIT: Array<[string, string]> = [
  ['created_by', 'text'], ['created_date', 'timestamptz'], ['last_modified_by', 'text'], ['last_modified_date', 'timestamptz'],
];
const AUDIT_NAMES = new Set(AUDIT.map(([c]) => c));
const compared = (columns: Array<[string, string]>) => columns.map(([c]) => c).filter((c) => !AUDIT_NAMES.has(c));
/**
 * `created_date` is required here: a row without any revision in the source (the reference wrote
 * a base revision for every row when it enabled Envers, so only a damaged source has one) gets the epoch.
 */
const audited = (row: Row): Row => {
  row.created_date ??= new Date(0);
  return row;
};

const attributes = (table: string, alias: string) =>
  `(select coalesce(jsonb_object_agg(m.attribute_key, m.attribute_value), '{}'::jsonb) from ${table} m where m.id = ${alias}.id and m.attribute_key is not null) as attributes`;

/** The row's values of `columns` (null when missing), `set` written over them (a loop: this runs for every row). */
const pick = (row: Row, columns: Array<[string, string]>, set?: Row): Row => {
  const out: Row = {};
  for (const [c] of columns) out[c] = row[c] ?? null;
  return set ? Object.assign(out, set) : out;
};

/** The reference's comma-separated lists (`oauth_client_details`) as arrays. */
export const commaList = (value: unknown): string[] =>
  typeof value === 'string' ? value.split(',').map((s) => s.trim()).filter((s) => s !== '') : [];

/** `additional_information` is JSON text in the reference; anything else is refused with a reason. */
export function jsonObject(value: unknown, what: string): Record<string, unknown> {
  if (value === null || value === undefined || value === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(String(value));
  } catch {
    throw new Error(`${what} is not JSON`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error(`${what} is not a JSON object`);
  return parsed as Record<string, unknown>;
}

const ORGANIZATIONS: Array<[string, string]> = [['id', 'bigint'], ['name', 'text'], ['description', 'text'], ['location', 'text'], ...AUDIT];
const PROJECTS: Array<[string, string]> = [
  ['id', 'bigint'], ['project_name', 'text'], ['description', 'text'], ['organization_name', 'text'], ['organization_id', 'bigint'],
  ['location', 'text'], ['start_date', 'timestamptz'], ['end_date', 'timestamptz'], ['project_status', 'text'], ['attributes', 'jsonb'], ...AUDIT,
];
const SOURCE_TYPES: Array<[string, string]> = [
  ['id', 'bigint'], ['producer', 'text'], ['model', 'text'], ['catalog_version', 'text'], ['source_type_scope', 'text'],
  ['dynamic_registration', 'boolean'], ['name', 'text'], ['description', 'text'], ['assessment_type', 'text'], ['app_provider', 'text'], ...AUDIT,
];
const SOURCE_DATA: Array<[string, string]> = [
  ['id', 'bigint'], ['source_data_type', 'text'], ['source_data_name', 'text'], ['frequency', 'text'], ['unit', 'text'],
  ['processing_state', 'text'], ['data_class', 'text'], ['key_schema', 'text'], ['value_schema', 'text'], ['topic', 'text'],
  ['provider', 'text'], ['enabled', 'boolean'], ['source_type_id', 'bigint'], ...AUDIT,
];
const USERS: Array<[string, string]> = [
  ['id', 'bigint'], ['login', 'text'], ['password_hash', 'text'], ['first_name', 'text'], ['last_name', 'text'], ['email', 'text'],
  ['activated', 'boolean'], ['lang_key', 'text'], ['activation_key', 'text'], ['reset_key', 'text'], ['reset_date', 'timestamptz'], ...AUDIT,
];
const ROLES: Array<[string, string]> = [['id', 'bigint'], ['authority_name', 'text'], ['project_id', 'bigint'], ['organization_id', 'bigint']];
const SUBJECTS: Array<[string, string]> = [
  ['id', 'bigint'], ['user_id', 'bigint'], ['external_link', 'text'], ['external_id', 'text'], ['removed', 'boolean'],
  ['date_of_birth', 'date'], ['enrollment_date', 'timestamptz'], ['person_name', 'text'], ['attributes', 'jsonb'], ['group_id', 'bigint'], ...AUDIT,
];
const SOURCES: Array<[string, string]> = [
  ['id', 'bigint'], ['source_id', 'uuid'], ['source_name', 'text'], ['expected_source_name', 'text'], ['assigned', 'boolean'],
  ['deleted', 'boolean'], ['source_type_id', 'bigint'], ['project_id', 'bigint'], ['subject_id', 'bigint'], ['attributes', 'jsonb'], ...AUDIT,
];
const CLIENTS: Array<[string, string]> = [
  ['client_id', 'text'], ['resource_ids', 'text[]'], ['client_secret', 'text'], ['scope', 'text[]'], ['authorized_grant_types', 'text[]'],
  ['web_server_redirect_uri', 'text[]'], ['authorities', 'text[]'], ['access_token_validity', 'integer'],
  ['refresh_token_validity', 'integer'], ['additional_information', 'jsonb'], ['autoapprove', 'text[]'],
];
const META_TOKENS: Array<[string, string]> = [
  ['id', 'bigint'], ['token_name', 'text'], ['fetched', 'boolean'], ['expiry_date', 'timestamptz'], ['subject_id', 'bigint'],
  ['client_id', 'text'], ['persistent', 'boolean'],
];
const APPROVALS: Array<[string, string]> = [
  ['user_id', 'bigint'], ['client_id', 'text'], ['scope', 'text'], ['status', 'text'], ['expires_at', 'timestamptz'], ['last_modified_at', 'timestamptz'],
];
const AUDIT_EVENTS: Array<[string, string]> = [['id', 'bigint'], ['principal', 'text'], ['event_date', 'timestamptz'], ['event_type', 'text'], ['data', 'jsonb']];

const REVISIONS: Array<[string, string]> = [['id', 'bigint'], ['timestamp', 'timestamptz'], ['author', 'text']];
const REVISION_CHANGES: Array<[string, string]> = [
  ['id', 'bigint'], ['revision_id', 'bigint'], ['entity_type', 'text'], ['entity_id', 'bigint'], ['entity_key', 'text'],
  ['revision_type', 'text'], ['entity', 'jsonb'],
];

/**
 * Of the Envers rows `<aud>` (alias `c`) of what belongs to a subject revision (alias `a2`, a row of
 * `subject_aud`): the state at that revision, one row per `key` (the latest revision up to it; for a
 * delete, up to the one before, the state the subject was deleted in). The reference has no index on
 * these tables' owner columns: each is joined as a whole, never looked up per revision.
 */
const atRevision = (aud: string, on: string, key: string, via = '') => `select distinct on (a2.id, a2.rev, ${key}) a2.id as sid, a2.rev as srev, c.*
    from subject_aud a2 ${via} join ${aud} c on ${on} and (c.rev < a2.rev or (c.rev = a2.rev and coalesce(a2.revtype, 0) <> 2))
    order by a2.id, a2.rev, ${key}, c.rev desc`;
const instantText = (col: string) => `to_char(${col}, 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * Each row of `subject_aud` as this service's revision change: the subject's DTO at that revision
 * (what `GET /api/subjects/{login}/revisions` shows and the UI compares): its fields, its user's
 * login and activation, its attributes, roles and sources as they were then, and its project (the
 * project of its participant role, named as it was then).
 */
const SUBJECT_REVISIONS_SELECT = `select a.id::text || ':' || a.rev::text as _key, a.rev, a.id as entity_id, us.login as entity_key,
    case a.revtype when 0 then 'ADD' when 2 then 'DEL' else 'MOD' end as revision_type,
    jsonb_build_object(
      'id', a.id, 'login', us.login, 'externalLink', a.external_link, 'externalId', a.external_id,
      'status', case when coalesce(a.removed, false) then (case when us.activated then 'INVALID' else 'DISCONTINUED' end)
        else (case when us.activated then 'ACTIVATED' else 'DEACTIVATED' end) end,
      'group', g.name, 'dateOfBirth', a.date_of_birth::text, 'enrollmentDate', ${instantText('a.enrollment_date')},
      'personName', a.person_name, 'roles', coalesce(rl.roles, '[]'::jsonb), 'sources', coalesce(src.sources, '[]'::jsonb),
      'attributes', coalesce(attr.attributes, '{}'::jsonb)
    ) || case when rl.project_id is null then '{}'::jsonb else jsonb_build_object('project', jsonb_build_object(
      'id', rl.project_id, 'projectName', coalesce(pa.project_name, p.project_name), 'description', coalesce(pa.description, p.description),
      'location', coalesce(pa.location, p.location), 'projectStatus', coalesce(pa.project_status, p.project_status))) end as entity
  from subject_aud a
  left join lateral (select x.login, x.activated from radar_user_aud x where x.id = a.user_id and x.rev <= a.rev and x.login is not null
    order by x.rev desc limit 1) ua on true
  left join radar_user u on u.id = a.user_id
  cross join lateral (select coalesce(ua.login, u.login) as login, coalesce(ua.activated, u.activated, false) as activated) us
  left join radar_group g on g.id = a.group_id
  left join (select m.sid, m.srev, jsonb_object_agg(m.attribute_key, m.attribute_value) as attributes
      from (${atRevision('subject_metadata_aud', 'c.id = a2.id', 'c.attribute_key, c.attribute_value')}) m
      where coalesce(m.revtype, 0) <> 2 group by m.sid, m.srev) attr on attr.sid = a.id and attr.srev = a.rev
  left join (select ru.sid, ru.srev,
        jsonb_agg(jsonb_strip_nulls(jsonb_build_object('id', r.id, 'organizationId', r.organization_id, 'organizationName', o.name,
          'projectId', r.project_id, 'projectName', rp.project_name, 'authorityName', r.authority_name)) order by r.id) as roles,
        min(r.project_id) filter (where r.authority_name = 'ROLE_PARTICIPANT') as project_id
      from (${atRevision('role_users_aud', 'c.users_id = a2.user_id', 'c.roles_id')}) ru
      join radar_role r on r.id = ru.roles_id left join project rp on rp.id = r.project_id left join radar_organization o on o.id = r.organization_id
      where coalesce(ru.revtype, 0) <> 2 group by ru.sid, ru.srev) rl on rl.sid = a.id and rl.srev = a.rev
  left join (select sa.sid, sa.srev, jsonb_agg(jsonb_build_object('id', sa.id, 'sourceTypeId', sa.source_type_id, 'sourceTypeProducer', st.producer,
        'sourceTypeModel', st.model, 'sourceTypeCatalogVersion', st.catalog_version, 'expectedSourceName', sa.expected_source_name,
        'sourceId', sa.source_id::text, 'sourceName', sa.source_name, 'assigned', coalesce(sa.assigned, false),
        'attributes', (select coalesce(jsonb_object_agg(sm.attribute_key, sm.attribute_value), '{}'::jsonb) from source_metadata sm
          where sm.id = sa.id and sm.attribute_key is not null)) order by sa.id) as sources
      from (${atRevision('radar_source_aud', 'c.id = ever.id', 'c.id',
        // The sources the subject ever had.
        'join (select distinct e.id, e.subject_id from radar_source_aud e where e.subject_id is not null) ever on ever.subject_id = a2.id')}) sa
      left join source_type st on st.id = sa.source_type_id
      where coalesce(sa.revtype, 0) <> 2 and sa.subject_id = sa.sid group by sa.sid, sa.srev) src on src.sid = a.id and src.srev = a.rev
  left join lateral (select x.project_name, x.description, x.location, x.project_status from project_aud x
    where x.id = rl.project_id and x.rev <= a.rev and x.project_name is not null order by x.rev desc limit 1) pa on true
  left join project p on p.id = rl.project_id
  order by a.id, a.rev`;

/**
 * A subject's history is ordered by revision id, so the imported revisions keep theirs: a revision
 * of this installation's own (the catalogue import's, written at its first start) that holds the
 * id of one to import moves to a new id past all of them, with its changes.
 */
async function makeRoomForRevisions(source: Tx, target: Tx, opts: EngineOptions): Promise<void> {
  const [range] = await source.unsafe<Array<{ lo: string | null; hi: string | null }>>(
    'select min(r.id)::text as lo, max(r.id)::text as hi from _revisions_info r where r.id in (select a.rev from subject_aud a)',
  );
  if (!range?.hi) return;
  const own = await target.unsafe<Array<{ id: string }>>(
    `select r.id::text as id from management.revisions r where r.id between $1::bigint and $2::bigint
       and not exists (select 1 from import.imported_rows b where b.source = $3 and b.source_table = '_revisions_info' and b.target_key = r.id::text)
     order by r.id`,
    [range.lo, range.hi, opts.source],
  );
  if (own.length === 0) return;
  await target.unsafe(`select setval(pg_get_serial_sequence('management.revisions', 'id'), greatest($1::bigint,
    (select coalesce(max(id), 1) from management.revisions)))`, [range.hi]);
  for (const { id } of own) {
    const [moved] = await target.unsafe<Array<{ id: string }>>(
      `insert into management.revisions ("timestamp", author) select "timestamp", author from management.revisions where id = $1::bigint returning id::text`, [id],
    );
    await target.unsafe('update management.revision_changes set revision_id = $2::bigint where revision_id = $1::bigint', [id, moved!.id]);
    await target.unsafe('delete from management.revisions where id = $1::bigint', [id]);
  }
}

const byId = (table: string) => `select id::text as _key from ${table} where id = any($1::text[]::bigint[])`;
const map = (ids: IdMap, table: string, value: unknown) => ids.get(`management.${table}`, value);

/** The ManagementPortal tables, in import order (a table's references come before it). */
export const MANAGEMENTPORTAL_TABLES: TableSpec[] = [
  {
    // The eight ROLE_* names: the service creates them at its first start, a target it never ran on has none yet.
    name: 'radar_authority', target: 'management.authorities', link: true, columns: [['name', 'text']], conflict: ['name'],
    select: 'select name as _key, name from radar_authority order by name',
    map: (row) => ({ name: row.name }),
  },
  {
    name: 'radar_organization', target: 'management.organizations', columns: ORGANIZATIONS, conflict: ['id'], sequence: true,
    compare: compared(ORGANIZATIONS),
    select: `select o.id::text as _key, o.id, o.name, o.description, o.location, ${auditColumns}
      from radar_organization o ${auditJoins('radar_organization_aud', 'o')} order by o.id`,
    present: byId('radar_organization'),
    naturalKey: 't.name = x.name',
    merge: (row) => row.name === 'main',
    map: (row) => audited(pick(row, ORGANIZATIONS)),
  },
  {
    name: 'project', target: 'management.projects', columns: PROJECTS, conflict: ['id'], sequence: true,
    select: `select p.id::text as _key, p.id, p.project_name, p.description, p.jhi_organization as organization_name, p.organization_id,
      p.location, ${utc('p.start_date', 'start_date')}, ${utc('p.end_date', 'end_date')}, p.project_status, ${attributes('project_metadata', 'p')},
      ${auditColumns}
      from project p ${auditJoins('project_aud', 'p')} order by p.id`,
    present: byId('project'),
    compare: compared(PROJECTS),
    naturalKey: 't.project_name = x.project_name',
    map: (row, ids) => audited(pick(row, PROJECTS, { organization_id: map(ids, 'organizations', row.organization_id) })),
  },
  {
    name: 'source_type', target: 'management.source_types', columns: SOURCE_TYPES, conflict: ['id'], sequence: true,
    select: `select st.id::text as _key, st.*, ${auditColumns} from source_type st ${auditJoins('source_type_aud', 'st')} order by st.id`,
    present: byId('source_type'),
    compare: compared(SOURCE_TYPES),
    naturalKey: 't.producer = x.producer and t.model = x.model and t.catalog_version = x.catalog_version',
    map: (row) => audited(pick(row, SOURCE_TYPES)),
  },
  {
    name: 'source_data', target: 'management.source_data', columns: SOURCE_DATA, conflict: ['id'], sequence: true,
    select: `select sd.id::text as _key, sd.*, ${auditColumns} from source_data sd ${auditJoins('source_data_aud', 'sd')} order by sd.id`,
    present: byId('source_data'),
    compare: compared(SOURCE_DATA),
    naturalKey: 't.source_data_name = x.source_data_name',
    map: (row, ids) => audited(pick(row, SOURCE_DATA, { source_type_id: map(ids, 'source_types', row.source_type_id) })),
  },
  {
    name: 'project_source_type', target: 'management.project_source_types', link: true,
    columns: [['project_id', 'bigint'], ['source_type_id', 'bigint']], conflict: ['project_id', 'source_type_id'],
    select: `select projects_id::text || ':' || source_types_id::text as _key, projects_id, source_types_id
      from project_source_type order by projects_id, source_types_id`,
    map: (row, ids) => ({ project_id: map(ids, 'projects', row.projects_id), source_type_id: map(ids, 'source_types', row.source_types_id) }),
  },
  {
    name: 'radar_group', target: 'management.groups', columns: [['id', 'bigint'], ['project_id', 'bigint'], ['name', 'text']],
    conflict: ['id'], sequence: true,
    select: 'select id::text as _key, * from radar_group order by id',
    present: byId('radar_group'),
    naturalKey: 't.project_id = x.project_id and t.name = x.name',
    map: (row, ids) => ({ id: row.id, project_id: map(ids, 'projects', row.project_id), name: row.name }),
  },
  {
    name: 'radar_user', target: 'management.users', columns: USERS, conflict: ['id'], sequence: true, compare: compared(USERS),
    select: `select u.id::text as _key, u.id, u.login, u.password_hash, u.first_name, u.last_name, u.email, u.activated, u.lang_key,
      u.activation_key, u.reset_key, ${utc('u.reset_date', 'reset_date')}, ${auditColumns}
      from radar_user u ${auditJoins('radar_user_aud', 'u')} order by u.id`,
    present: byId('radar_user'),
    naturalKey: 't.login = x.login',
    // The reference lower-cases logins; `admin` is the account every installation has.
    merge: (row) => row.login === 'admin',
    map: (row) => audited(pick(row, USERS)),
  },
  {
    name: 'radar_role', target: 'management.roles', columns: ROLES, conflict: ['id'], sequence: true, adoptByNaturalKey: true,
    select: 'select id::text as _key, * from radar_role order by id',
    present: byId('radar_role'),
    naturalKey: 't.authority_name = x.authority_name and t.project_id is not distinct from x.project_id and t.organization_id is not distinct from x.organization_id',
    map: (row, ids) => ({
      id: row.id, authority_name: row.authority_name,
      project_id: map(ids, 'projects', row.project_id), organization_id: map(ids, 'organizations', row.organization_id),
    }),
  },
  {
    name: 'role_users', target: 'management.role_users', link: true,
    columns: [['user_id', 'bigint'], ['role_id', 'bigint']], conflict: ['user_id', 'role_id'],
    select: `select users_id::text || ':' || roles_id::text as _key, users_id, roles_id from role_users order by users_id, roles_id`,
    map: (row, ids) => ({ user_id: map(ids, 'users', row.users_id), role_id: map(ids, 'roles', row.roles_id) }),
  },
  {
    name: 'subject', target: 'management.subjects', columns: SUBJECTS, conflict: ['id'], sequence: true,
    select: `select s.id::text as _key, s.id, s.user_id, s.external_link, s.external_id, coalesce(s.removed, false) as removed,
      s.date_of_birth::text as date_of_birth, ${utc('s.enrollment_date', 'enrollment_date')}, s.person_name,
      ${attributes('subject_metadata', 's')}, s.group_id, ${auditColumns}
      from subject s ${auditJoins('subject_aud', 's')} order by s.id`,
    present: byId('subject'),
    compare: compared(SUBJECTS),
    naturalKey: 't.user_id = x.user_id',
    map: (row, ids) => audited(pick(row, SUBJECTS, { user_id: map(ids, 'users', row.user_id), group_id: map(ids, 'groups', row.group_id) })),
  },
  {
    name: 'radar_source', target: 'management.sources', columns: SOURCES, conflict: ['id'], sequence: true,
    select: `select s.id::text as _key, s.id, s.source_id::text as source_id, s.source_name, s.expected_source_name, s.assigned,
      s.deleted, s.source_type_id, s.project_id, s.subject_id, ${attributes('source_metadata', 's')}, ${auditColumns}
      from radar_source s ${auditJoins('radar_source_aud', 's')} order by s.id`,
    present: byId('radar_source'),
    compare: compared(SOURCES),
    naturalKey: '(t.source_id = x.source_id or t.source_name = x.source_name)',
    map: (row, ids) => audited(pick(row, SOURCES, {
      source_type_id: map(ids, 'source_types', row.source_type_id),
      project_id: map(ids, 'projects', row.project_id), subject_id: map(ids, 'subjects', row.subject_id),
    })),
  },
  {
    name: 'oauth_client_details', target: 'management.oauth_client_details', columns: CLIENTS, conflict: ['client_id'],
    select: 'select client_id as _key, * from oauth_client_details order by client_id',
    present: 'select client_id as _key from oauth_client_details where client_id = any($1::text[])',
    naturalKey: 't.client_id = x.client_id',
    // The admin UI's own client: every installation has it, the source's settings win.
    merge: (row) => row.client_id === 'ManagementPortalapp',
    // The service re-creates it from its MANAGEMENTPORTAL_FRONTEND_* settings at every start, as the reference did.
    rewrittenAtStart: (row) => row.client_id === 'ManagementPortalapp',
    map: (row) => ({
      client_id: row.client_id,
      resource_ids: commaList(row.resource_ids),
      client_secret: row.client_secret || null,
      scope: commaList(row.scope),
      authorized_grant_types: commaList(row.authorized_grant_types),
      web_server_redirect_uri: commaList(row.web_server_redirect_uri),
      authorities: commaList(row.authorities),
      access_token_validity: row.access_token_validity ?? null,
      refresh_token_validity: row.refresh_token_validity ?? null,
      additional_information: jsonObject(row.additional_information, 'additional_information'),
      autoapprove: commaList(row.autoapprove),
    }),
  },
  {
    // Remembered consents that still hold (the reference keys them by login).
    name: 'oauth_approvals', target: 'management.oauth_approvals', columns: APPROVALS, conflict: ['user_id', 'client_id', 'scope'],
    select: `select u.id::text || ':' || a."clientId" || ':' || a.scope as _key, u.id as user_id, a."clientId" as client_id, a.scope,
      a.status, ${utc('a."expiresAt"', 'expires_at')}, ${utc('a."lastModifiedAt"', 'last_modified_at')}
      from oauth_approvals a join radar_user u on u.login = a."userId"
      where a."expiresAt" > (now() at time zone 'UTC') and a.scope is not null and a."clientId" is not null
      order by 1`,
    naturalKey: 't.user_id = x.user_id and t.client_id = x.client_id and t.scope = x.scope',
    map: (row, ids) => pick(row, APPROVALS, { user_id: map(ids, 'users', row.user_id), last_modified_at: row.last_modified_at ?? row.expires_at }),
  },
  {
    // Only the tokens that can still be used: unexpired, and persistent or not yet fetched (QR codes already printed).
    name: 'radar_meta_token', target: 'management.meta_tokens', columns: META_TOKENS, conflict: ['id'], sequence: true,
    select: `select id::text as _key, id, token_name, fetched, ${utc('expiry_date')}, subject_id, client_id, coalesce(persistent, false) as persistent
      from radar_meta_token where expiry_date > (now() at time zone 'UTC') and (persistent or not fetched) order by id`,
    present: `select id::text as _key from radar_meta_token where id = any($1::text[]::bigint[])
      and expiry_date > (now() at time zone 'UTC') and (persistent or not fetched)`,
    naturalKey: 't.token_name = x.token_name',
    map: (row, ids) => pick(row, META_TOKENS, { subject_id: map(ids, 'subjects', row.subject_id) }),
  },
  {
    // No client holds an audit event's id: one the target's own events already use gets the next free one.
    name: 'jhi_persistent_audit_event', target: 'management.audit_events', columns: AUDIT_EVENTS, conflict: ['id'], sequence: true,
    adoptByNaturalKey: true,
    select: `select e.event_id::text as _key, e.event_id as id, e.principal, ${utc('e.event_date', 'event_date')}, e.event_type,
      (select coalesce(jsonb_object_agg(d.name, d.value), '{}'::jsonb) from jhi_persistent_audit_evt_data d where d.event_id = e.event_id) as data
      from jhi_persistent_audit_event e order by e.event_id`,
    present: 'select event_id::text as _key from jhi_persistent_audit_event where event_id = any($1::text[]::bigint[])',
    map: (row) => pick(row, AUDIT_EVENTS, { event_date: row.event_date ?? new Date(0), event_type: row.event_type ?? '' }),
  },
  {
    // The Envers revisions that changed a subject (who, when), ids kept (makeRoomForRevisions).
    name: '_revisions_info', target: 'management.revisions', columns: REVISIONS, conflict: ['id'], sequence: true, adoptByNaturalKey: true,
    select: `select r.id::text as _key, r.id, coalesce(r."timestamp", 'epoch') at time zone 'UTC' as "timestamp", coalesce(r.auditor, 'system') as author
      from _revisions_info r where r.id in (select a.rev from subject_aud a) order by r.id`,
    present: `select r.id::text as _key from _revisions_info r where r.id = any($1::text[]::int[]) and r.id in (select a.rev from subject_aud a)`,
    presentPage: 50_000,
    prepare: makeRoomForRevisions,
    map: (row) => pick(row, REVISIONS),
  },
  {
    // What each of those revisions did to a subject, as this service's subject revisions.
    name: 'subject_aud', target: 'management.revision_changes', columns: REVISION_CHANGES, conflict: ['id'], generatedId: true,
    select: SUBJECT_REVISIONS_SELECT,
    present: `select k as _key from unnest($1::text[]) k
      join subject_aud a on a.id = split_part(k, ':', 1)::bigint and a.rev = split_part(k, ':', 2)::int`,
    map: (row, ids) => ({
      id: null, revision_id: map(ids, 'revisions', row.rev), entity_type: 'subject', entity_id: map(ids, 'subjects', row.entity_id),
      entity_key: row.entity_key ?? null, revision_type: row.revision_type, entity: row.entity,
    }),
  },
];

/** The source's ManagementPortal schema, and what the report should say about it. */
export interface ManagementPortalSource {
  /**
   * `3.0.0` when the schema has v3's one addition (20231114150000_add_user_identity.xml:
   * `radar_user.identity`, the user's identity at an external identity server), else `2.1.x`.
   */
  version: '2.1.x' | '3.0.0';
  notes: string[];
}

/**
 * Which ManagementPortal the source is (by its columns: Liquibase's `databasechangelog` may have
 * been left behind by a dump). v3.0.0 reads as v2.1.x: its identity column has no counterpart
 * here (this service is its own identity server, as v3 in its internal mode).
 */
export async function managementPortalSource(tx: Tx): Promise<ManagementPortalSource> {
  const [row] = await tx.unsafe<Array<{ identity: boolean }>>(
    `select exists (select 1 from information_schema.columns
      where table_schema = current_schema() and table_name = 'radar_user' and column_name = 'identity') as identity`,
  );
  if (!row?.identity) return { version: '2.1.x', notes: [] };
  const [linked] = await tx.unsafe<Array<{ n: number }>>('select count(*)::int as n from radar_user where identity is not null');
  const notes = linked && linked.n > 0
    ? [`${linked.n} users are linked to an identity of an external identity server (radar_user.identity): that identity and the credentials it holds do not move; `
      + 'they sign in here with the password hash ManagementPortal holds, or need a password reset']
    : [];
  return { version: '3.0.0', notes };
}
