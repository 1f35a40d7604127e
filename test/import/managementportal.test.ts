/**
 * The switch-over importer (issue 32) from a ManagementPortal v2.1.13 database into this
 * service's: the source is built from the reference's own Liquibase schema
 * (test/fixtures/import/managementportal-2.1.13.sql) and filled with awkward rows; each target is
 * a new database. PostgreSQL only (the sources are PostgreSQL).
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import bcrypt from '@node-rs/bcrypt';
import pino from 'pino';
import postgres, { type Sql } from 'postgres';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { buildApp } from '../../src/app.js';
import { runImport, TargetNotNew, type ImportOptions, type ImportReport } from '../../src/import/run.js';
import { verifyImport } from '../../src/import/verify.js';
import { historyOf } from '../../src/management/ui/projects/subject-page.js';
import { until } from '../helpers/eventually.js';
import { basic, managementClient } from '../helpers/management-api.js';
import { onPostgres } from '../helpers/build-test-app.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const FIXTURE = readFileSync(new URL('../fixtures/import/managementportal-2.1.13.sql', import.meta.url), 'utf8');
/** What v3.0.0 adds to v2.1.13's schema. */
const FIXTURE_V3 = readFileSync(new URL('../fixtures/import/managementportal-3.0.0.sql', import.meta.url), 'utf8');
const BULK = 150;

/** A bcrypt hash as the reference's Spring `BCryptPasswordEncoder` writes it (`$2a$`). */
const javaBcrypt = (password: string) => bcrypt.hashSync(password, 4).replace(/^\$2b\$/, '$2a$');

const made: string[] = [];
let admin: Sql;
const urlOf = (name: string) => {
  const url = new URL(process.env.TEST_DATABASE_URL!);
  url.pathname = `/${name}`;
  return url.toString();
};
/** A new database: empty, or a copy of the migrated test template. */
async function database(kind: 'empty' | 'migrated'): Promise<{ name: string; url: string; sql: Sql }> {
  const name = `radar_import_${randomBytes(5).toString('hex')}`;
  await admin.unsafe(`CREATE DATABASE ${name}${kind === 'migrated' ? ` TEMPLATE ${inject('pgTemplate')}` : ''}`);
  made.push(name);
  return { name, url: urlOf(name), sql: postgres(urlOf(name), { max: 2, onnotice: () => {} }) };
}

const log = pino({ level: 'silent' });
/** Every skip of a report, by table (empty when the run succeeded). */
const skips = (report: { tables: Record<string, { skipped: unknown[] }> }) =>
  Object.fromEntries(Object.entries(report.tables).filter(([, t]) => t.skipped.length > 0).map(([name, t]) => [name, t.skipped]));
const importInto = (target: string, source: string, extra: Partial<ImportOptions> = {}) =>
  runImport({ target: { kind: 'postgres', url: target, poolSize: 2 }, managementportal: source, log, ...extra });

async function fillSource(sql: Sql) {
  await sql.unsafe(FIXTURE);
  await sql.unsafe(`
    insert into radar_user (id, login, password_hash, first_name, last_name, email, activated, lang_key) values
      (1, 'admin', '${javaBcrypt('source-admin-pw')}', 'Administrator', 'Administrator', 'admin@example.org', true, 'en'),
      (1020, 'alice', '${javaBcrypt('alice-pw')}', 'Ålice', 'Łast', 'alice@example.org', true, 'nl'),
      (1021, 'sub-x', null, null, null, null, true, 'en'),
      (1022, 'sub-discontinued', null, null, null, null, true, null),
      (1023, 'sub-null', null, null, null, null, false, null);
    insert into _revisions_info (id, auditor, "timestamp") values (2, 'admin', '2021-01-01 10:00:00'), (52, 'alice', '2022-02-02 12:30:00');
    insert into radar_user_aud (id, rev, revtype, login) values (1020, 2, 0, 'alice'), (1020, 52, 1, 'alice');
    insert into radar_organization (id, name, description, location) values (1001, 'Ørg ünïcode', 'Ein Verein', 'Zürich');
    insert into project (id, project_name, description, jhi_organization, location, start_date, project_status, end_date, organization_id) values
      (1002, 'study-a', 'Stüdy α', 'Legacy Org', 'London', '2021-03-01 00:00:00', 'ONGOING', null, 1001),
      (1003, 'other', 'Other', null, '-', null, null, null, 1);
    insert into project_metadata (id, attribute_key, attribute_value) values
      (1002, 'Human-readable-project-name', 'Stüdy α'), (1002, 'Privacy-policy-url', 'https://example.org/privacy'), (1002, 'empty', null);
    insert into source_type (id, producer, model, catalog_version, source_type_scope, app_provider, assessment_type, name, description, dynamic_registration) values
      (1004, 'RADAR', 'aRMT-App', '1.5.0', 'ACTIVE', 'org.radarbase.Questionnaire', null, 'RADAR aRMT', null, true);
    insert into source_data (id, source_data_type, source_data_name, source_type_id, frequency, unit, processing_state, data_class, key_schema, value_schema, topic, provider, enabled) values
      (1005, 'QUESTIONNAIRE', 'RADAR_aRMT-App_1.5.0_QUESTIONNAIRE', 1004, null, null, 'RAW', null, 'org.radarcns.kafka.ObservationKey', 'org.radarcns.active.questionnaire.Questionnaire', 'questionnaire_response', null, true);
    insert into project_source_type (source_types_id, projects_id) values (1004, 1002);
    insert into radar_group (id, project_id, name) values (1006, 1002, 'Gruppe Ä');
    insert into radar_role (id, project_id, authority_name, organization_id) values
      (1, null, 'ROLE_SYS_ADMIN', null), (1010, 1002, 'ROLE_PARTICIPANT', null), (1011, 1002, 'ROLE_PROJECT_ADMIN', null),
      (1012, 1003, 'ROLE_PROJECT_ADMIN', null), (1013, 1002, 'ROLE_INACTIVE_PARTICIPANT', null), (1014, null, 'ROLE_ORGANIZATION_ADMIN', 1);
    insert into role_users (users_id, roles_id) values (1, 1), (1020, 1011), (1020, 1012), (1020, 1014), (1021, 1010), (1022, 1013), (1023, 1010);
    insert into subject (id, external_link, external_id, removed, user_id, group_id, date_of_birth, person_name, enrollment_date) values
      (1030, 'https://example.org/p/1', 'EXT-1', false, 1021, 1006, '1990-12-31', 'Zoë 🙂', '2021-04-01 08:00:00'),
      (1031, null, null, true, 1022, null, null, null, null),
      (1032, null, null, null, 1023, null, null, null, null);
    insert into subject_metadata (id, attribute_key, attribute_value) values (1030, 'ключ', 'значение'), (1030, 'site', 'A');
    insert into radar_source (id, source_id, source_name, expected_source_name, assigned, source_type_id, project_id, subject_id, deleted) values
      (1040, '8f1b1b7e-5c36-4a58-9f9e-6e2f0a1c2b3d', 'aRMT-α', null, true, 1004, 1002, 1030, false),
      (1041, '0b7c2a4e-1111-4c8e-8d6b-0123456789ab', 'spare-1', 'E4-123', false, 1004, 1002, null, false);
    insert into source_metadata (id, attribute_key, attribute_value) values (1040, 'firmware', '1.2.3');
    insert into oauth_client_details values
      ('legacy-client', 'res_ManagementPortal,res_AppServer', '${javaBcrypt('legacy-secret')}', 'SUBJECT.READ,PROJECT.READ,MEASUREMENT.CREATE',
       'password,refresh_token,client_credentials', 'https://example.org/cb?a="b"&c=\\d{e}', null, 3600, 7200, '{"protected":"true","dynamic_registration":true}', 'true'),
      ('ManagementPortalapp', 'res_ManagementPortal', '', 'SUBJECT.READ', 'password,refresh_token', null, null, 14400, 259200, '{"protected":"true"}', null);
    insert into oauth_approvals ("userId", "clientId", scope, status, "expiresAt", "lastModifiedAt") values
      ('alice', 'legacy-client', 'SUBJECT.READ', 'APPROVED', now() + interval '30 days', '2022-02-02 12:00:00'),
      ('alice', 'legacy-client', 'PROJECT.READ', 'DENIED', now() - interval '1 day', '2022-02-02 12:00:00');
    insert into radar_meta_token (id, token_name, fetched, expiry_date, subject_id, client_id, persistent) values
      (1050, 'Persist1', true, now() + interval '20 days', 1030, 'legacy-client', true),
      (1051, 'Fetched1', true, now() + interval '1 hour', 1030, 'legacy-client', false),
      (1052, 'Expired1', false, now() - interval '1 hour', 1030, 'legacy-client', false);
    insert into jhi_persistent_audit_event (event_id, principal, event_date, event_type) values (1060, 'alice', '2022-02-02 12:00:00', 'AUTHENTICATION_SUCCESS');
    insert into jhi_persistent_audit_evt_data (event_id, name, value) values (1060, 'remoteAddress', '127.0.0.1');
    -- Envers history: sub-x's subject created by alice (rev 102) and changed by admin (rev 152); a subject
    -- deleted in rev 202 (its rows are gone, its history is not); who created and changed the rest.
    insert into _revisions_info (id, auditor, "timestamp") values
      (102, 'alice', '2022-03-03 09:00:00'), (152, 'admin', '2022-04-04 10:00:00'), (202, null, '2022-05-05 00:00:00');
    insert into radar_user_aud (id, rev, revtype, login, activated) values
      (1021, 102, 0, 'sub-x', true), (1099, 102, 0, 'sub-gone', true), (1099, 202, 2, 'sub-gone', true);
    insert into subject_aud (id, rev, revtype, external_id, external_link, removed, user_id, group_id, date_of_birth, person_name, enrollment_date) values
      (1030, 102, 0, 'EXT-0', null, false, 1021, null, null, 'Zoe', '2021-04-01 08:00:00'),
      (1030, 152, 1, 'EXT-1', 'https://example.org/p/1', false, 1021, 1006, '1990-12-31', 'Zoë 🙂', '2021-04-01 08:00:00'),
      (1099, 102, 0, 'GONE', null, false, 1099, null, null, null, null),
      (1099, 202, 2, 'GONE', null, false, 1099, null, null, null, null);
    insert into subject_metadata_aud (rev, id, attribute_value, attribute_key, revtype) values
      (102, 1030, 'A', 'site', 0), (152, 1030, 'значение', 'ключ', 0), (102, 1099, 'x', 'k', 0), (202, 1099, 'x', 'k', 2);
    insert into role_users_aud (rev, users_id, roles_id, revtype) values (102, 1021, 1010, 0), (102, 1099, 1010, 0), (202, 1099, 1010, 2);
    insert into radar_source_aud (id, rev, revtype, assigned, expected_source_name, source_id, source_name, project_id, source_type_id, subject_id) values
      (1040, 102, 0, false, null, '8f1b1b7e-5c36-4a58-9f9e-6e2f0a1c2b3d', 'aRMT-α', 1002, 1004, null),
      (1040, 152, 1, true, null, '8f1b1b7e-5c36-4a58-9f9e-6e2f0a1c2b3d', 'aRMT-α', 1002, 1004, 1030);
    insert into project_aud (id, rev, revtype, project_name, description, location, project_status) values
      (1002, 2, 0, 'study-a', 'Stüdy α', 'London', 'PLANNING'), (1002, 52, 1, 'study-a', 'Stüdy α', 'London', 'ONGOING');
    insert into radar_organization_aud (id, rev, revtype, name, description, location) values (1001, 52, 0, 'Ørg ünïcode', 'Ein Verein', 'Zürich');
    insert into source_type_aud (id, rev, revtype, producer, model, catalog_version) values (1004, 2, 0, 'RADAR', 'aRMT-App', '1.5.0');
    insert into source_data_aud (id, rev, revtype, source_data_name) values (1005, 2, 0, 'RADAR_aRMT-App_1.5.0_QUESTIONNAIRE');
    insert into radar_user (id, login, activated) select 2000 + n, 'bulk-' || n, true from generate_series(1, ${BULK}) n;
    insert into role_users (users_id, roles_id) select 2000 + n, 1010 from generate_series(1, ${BULK}) n;
    insert into subject (id, user_id, removed) select 5000 + n, 2000 + n, false from generate_series(1, ${BULK}) n;
  `);
}

/** What the import wrote, comparable between runs (no column the target fills with now()). */
async function dump(sql: Sql) {
  const q = (text: string) => sql.unsafe(text).then((rows) => JSON.parse(JSON.stringify(rows)) as unknown[]);
  return {
    users: await q('select * from management.users order by id'),
    organizations: await q('select id, name, description, location from management.organizations order by id'),
    projects: await q('select id, project_name, description, organization_name, organization_id, location, start_date, end_date, project_status, attributes from management.projects order by id'),
    roles: await q('select * from management.roles order by id'),
    roleUsers: await q('select * from management.role_users order by user_id, role_id'),
    groups: await q('select * from management.groups order by id'),
    subjects: await q('select id, user_id, external_link, external_id, removed, date_of_birth, enrollment_date, person_name, attributes, group_id from management.subjects order by id'),
    sources: await q('select id, source_id, source_name, expected_source_name, assigned, deleted, source_type_id, project_id, subject_id, attributes from management.sources order by id'),
    sourceTypes: await q('select id, producer, model, catalog_version, source_type_scope, dynamic_registration, name, description, assessment_type, app_provider from management.source_types order by id'),
    sourceData: await q('select id, source_data_name, source_type_id, topic, enabled from management.source_data order by id'),
    links: await q('select * from management.project_source_types order by project_id, source_type_id'),
    approvals: await q('select user_id, client_id, scope, status, expires_at, last_modified_at from management.oauth_approvals order by 1, 2, 3'),
    clients: await q('select client_id, resource_ids, client_secret, scope, authorized_grant_types, authorities, access_token_validity, refresh_token_validity, additional_information, autoapprove from management.oauth_client_details order by client_id'),
    metaTokens: await q('select id, token_name, fetched, expiry_date, subject_id, client_id, persistent from management.meta_tokens order by id'),
    auditEvents: await q('select principal, event_date, event_type, data from management.audit_events order by id'),
    revisions: await q('select * from management.revisions order by id'),
    revisionChanges: await q('select revision_id, entity_type, entity_id, entity_key, revision_type, entity from management.revision_changes order by entity_id, revision_id'),
    // A revision change's id is this service's own (taken from its sequence).
    bookkeeping: await q(`select source, source_table, source_key, case when source_table = 'subject_aud' then null else target_key end as target_key, content_hash
      from import.imported_rows order by source_table, source_key`),
  };
}

const pickKeys = <T extends object, K extends keyof T>(o: T, keys: K[]): Pick<T, K> =>
  Object.fromEntries(keys.map((k) => [k, o[k]])) as Pick<T, K>;

/** Starts the service on `url` once (dev profile, no demo data) and closes it. */
async function withApp<T>(url: string, fn: (app: Awaited<ReturnType<typeof buildApp>>) => Promise<T>): Promise<T> {
  const config = loadConfig({ PROFILE: 'dev', SCHEDULER_ENABLED: 'false', DATABASE_URL: url }, '0.0.0-test');
  const app = await buildApp(config, { logger: false, demoData: false });
  try {
    await app.ready();
    return await fn(app);
  } finally {
    await app.close();
  }
}

describe.runIf(process.env.TEST_DATABASE_URL && onPostgres())('npm run import from ManagementPortal v2.1.13', { timeout: 30_000 }, () => {
  let source: Awaited<ReturnType<typeof database>>;
  let target: Awaited<ReturnType<typeof database>>;
  const opened: Sql[] = [];

  beforeAll(async () => {
    admin = postgres(process.env.TEST_DATABASE_URL!, { max: 1, onnotice: () => {} });
    source = await database('empty');
    opened.push(source.sql);
    await fillSource(source.sql);
    // A new installation: the service started once (admin, organization main, ManagementPortalapp).
    target = await database('migrated');
    opened.push(target.sql);
    await withApp(target.url, async () => {});
  }, 30_000);

  afterAll(async () => {
    for (const sql of opened) await sql.end({ timeout: 1 });
    if (admin) {
      for (const name of made) await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    }
  });

  it('--dry-run reads and checks everything and writes nothing', async () => {
    const before = await dump(target.sql);
    const report = await importInto(target.url, source.url, { dryRun: true });
    expect(skips(report)).toEqual({});
    expect(report).toMatchObject({ dryRun: true, ok: true, skippedForError: 0 });
    expect(report.tables['managementportal.radar_user']).toMatchObject({ read: 5 + BULK, imported: 5 + BULK, skipped: [] });
    expect(await dump(target.sql)).toEqual(before);
    expect(await target.sql`select count(*)::int as n from import.runs`).toEqual([{ n: 0 }]);
  });

  it('imports every table, keeping ids, hashes and attributes, and merging the built-in rows', async () => {
    const report = await importInto(target.url, source.url);
    expect(skips(report)).toEqual({});
    expect(report).toMatchObject({ ok: true, versions: { managementportal: '2.1.x' }, notes: [] });
    const counts = Object.fromEntries(Object.entries(report.tables).map(([t, r]) => [t, [r.read, r.imported, r.skipped.length]]));
    expect(counts).toEqual({
      'managementportal.radar_authority': [8, 8, 0],
      'managementportal.radar_organization': [2, 2, 0],
      'managementportal.project': [2, 2, 0],
      'managementportal.source_type': [1, 1, 0],
      'managementportal.source_data': [1, 1, 0],
      'managementportal.project_source_type': [1, 1, 0],
      'managementportal.radar_group': [1, 1, 0],
      'managementportal.radar_user': [5 + BULK, 5 + BULK, 0],
      'managementportal.radar_role': [6, 6, 0],
      'managementportal.role_users': [7 + BULK, 7 + BULK, 0],
      'managementportal.subject': [3 + BULK, 3 + BULK, 0],
      'managementportal.radar_source': [2, 2, 0],
      'managementportal.oauth_client_details': [2, 2, 0],
      'managementportal.oauth_approvals': [1, 1, 0],
      'managementportal.radar_meta_token': [1, 1, 0],
      'managementportal.jhi_persistent_audit_event': [1, 1, 0],
      'managementportal._revisions_info': [3, 3, 0],
      'managementportal.subject_aud': [4, 4, 0],
    });

    const [alice] = await target.sql`select id::int, login, first_name, last_name, email, lang_key, activated, password_hash, created_by, created_date, last_modified_by, last_modified_date from management.users where login = 'alice'`;
    const [sourceAlice] = await source.sql`select password_hash from radar_user where login = 'alice'`;
    expect(alice).toEqual({
      id: 1020, login: 'alice', first_name: 'Ålice', last_name: 'Łast', email: 'alice@example.org', lang_key: 'nl', activated: true,
      password_hash: sourceAlice!.password_hash, created_by: 'admin', created_date: new Date('2021-01-01T10:00:00Z'),
      last_modified_by: 'alice', last_modified_date: new Date('2022-02-02T12:30:00Z'),
    });
    // The admin account every installation has: one row, the source's e-mail and hash.
    const admins = await target.sql`select id::int, email from management.users where login = 'admin'`;
    expect(admins).toEqual([{ id: 1, email: 'admin@example.org' }]);
    // Alice holds roles in two projects and the organization main.
    expect(await target.sql`select r.authority_name, p.project_name, o.name as organization from management.role_users ru
      join management.roles r on r.id = ru.role_id left join management.projects p on p.id = r.project_id
      left join management.organizations o on o.id = r.organization_id where ru.user_id = 1020 order by 1, 2`).toEqual([
      { authority_name: 'ROLE_ORGANIZATION_ADMIN', project_name: null, organization: 'main' },
      { authority_name: 'ROLE_PROJECT_ADMIN', project_name: 'other', organization: null },
      { authority_name: 'ROLE_PROJECT_ADMIN', project_name: 'study-a', organization: null },
    ]);
    expect(await target.sql`select id::int, project_name, organization_id::int, start_date, project_status, attributes from management.projects where id = 1002`).toEqual([{
      id: 1002, project_name: 'study-a', organization_id: 1001, start_date: new Date('2021-03-01T00:00:00Z'), project_status: 'ONGOING',
      attributes: { 'Human-readable-project-name': 'Stüdy α', 'Privacy-policy-url': 'https://example.org/privacy', empty: null },
    }]);
    expect(await target.sql`select id::int, user_id::int, external_id, removed, date_of_birth::text, person_name, attributes, group_id::int from management.subjects where id in (1030, 1031, 1032) order by id`).toEqual([
      { id: 1030, user_id: 1021, external_id: 'EXT-1', removed: false, date_of_birth: '1990-12-31', person_name: 'Zoë 🙂', attributes: { ключ: 'значение', site: 'A' }, group_id: 1006 },
      { id: 1031, user_id: 1022, external_id: null, removed: true, date_of_birth: null, person_name: null, attributes: {}, group_id: null },
      { id: 1032, user_id: 1023, external_id: null, removed: false, date_of_birth: null, person_name: null, attributes: {}, group_id: null },
    ]);
    expect(await target.sql`select id::int, source_id::text, source_name, subject_id::int, attributes from management.sources order by id`).toEqual([
      { id: 1040, source_id: '8f1b1b7e-5c36-4a58-9f9e-6e2f0a1c2b3d', source_name: 'aRMT-α', subject_id: 1030, attributes: { firmware: '1.2.3' } },
      { id: 1041, source_id: '0b7c2a4e-1111-4c8e-8d6b-0123456789ab', source_name: 'spare-1', subject_id: null, attributes: {} },
    ]);
    expect(await target.sql`select resource_ids, scope, authorized_grant_types, web_server_redirect_uri, access_token_validity, refresh_token_validity, additional_information, autoapprove
      from management.oauth_client_details where client_id = 'legacy-client'`).toEqual([{
      resource_ids: ['res_ManagementPortal', 'res_AppServer'], scope: ['SUBJECT.READ', 'PROJECT.READ', 'MEASUREMENT.CREATE'],
      authorized_grant_types: ['password', 'refresh_token', 'client_credentials'],
      // Quotes, a backslash and braces: an array literal's specials, carried as they are.
      web_server_redirect_uri: ['https://example.org/cb?a="b"&c=\\d{e}'],
      access_token_validity: 3600, refresh_token_validity: 7200, additional_information: { protected: 'true', dynamic_registration: true }, autoapprove: ['true'],
    }]);
    expect(await target.sql`select token_name, persistent from management.meta_tokens`).toEqual([{ token_name: 'Persist1', persistent: true }]);
    expect(await target.sql`select user_id::int, client_id, scope, status, last_modified_at from management.oauth_approvals`)
      .toEqual([{ user_id: 1020, client_id: 'legacy-client', scope: 'SUBJECT.READ', status: 'APPROVED', last_modified_at: new Date('2022-02-02T12:00:00Z') }]);
    // The sequences are past the imported ids: the next subject gets a new id.
    const [next] = await target.sql`select nextval(pg_get_serial_sequence('management.subjects', 'id'))::int as id`;
    expect(next!.id).toBeGreaterThan(5000 + BULK);
  });

  it('old passwords sign in and the old client secret authenticates, on the service started on the target', async () => {
    await withApp(target.url, async (app) => {
      const mp = managementClient(app);
      const alice = await mp.token({ grant_type: 'password', username: 'alice', password: 'alice-pw' }, basic('legacy-client', 'legacy-secret'));
      expect(alice).toMatchObject({ status: 200, token_type: 'bearer' });
      expect(await mp.token({ grant_type: 'password', username: 'alice', password: 'alice-pw' }, basic('legacy-client', 'wrong')))
        .toMatchObject({ status: 401, error: 'invalid_client' });
      const adminToken = await mp.tokenOf('admin', 'source-admin-pw');
      const res = await mp.call('GET', '/api/subjects/sub-x', { bearer: adminToken });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: 1030, login: 'sub-x', externalId: 'EXT-1', attributes: { ключ: 'значение', site: 'A' } });
    });
  });

  it('brings who created and last changed organizations, projects, source types, subjects and sources, from their Envers revisions', async () => {
    const who = (table: string, id: number) => target.sql.unsafe(
      `select created_by, created_date, last_modified_by, last_modified_date from management.${table} where id = $1`, [id],
    ).then((rows) => rows[0]);
    expect(await who('organizations', 1001)).toEqual({
      created_by: 'alice', created_date: new Date('2022-02-02T12:30:00Z'), last_modified_by: 'alice', last_modified_date: new Date('2022-02-02T12:30:00Z'),
    });
    expect(await who('projects', 1002)).toEqual({
      created_by: 'admin', created_date: new Date('2021-01-01T10:00:00Z'), last_modified_by: 'alice', last_modified_date: new Date('2022-02-02T12:30:00Z'),
    });
    expect(await who('source_types', 1004)).toMatchObject({ created_by: 'admin', created_date: new Date('2021-01-01T10:00:00Z') });
    expect(await who('source_data', 1005)).toMatchObject({ created_by: 'admin', created_date: new Date('2021-01-01T10:00:00Z') });
    expect(await who('subjects', 1030)).toEqual({
      created_by: 'alice', created_date: new Date('2022-03-03T09:00:00Z'), last_modified_by: 'admin', last_modified_date: new Date('2022-04-04T10:00:00Z'),
    });
    expect(await who('sources', 1040)).toEqual({
      created_by: 'alice', created_date: new Date('2022-03-03T09:00:00Z'), last_modified_by: 'admin', last_modified_date: new Date('2022-04-04T10:00:00Z'),
    });
    // No revision in the source: the reference's own default author, and no last change.
    expect(await who('subjects', 1031)).toEqual({ created_by: 'system', created_date: new Date(0), last_modified_by: null, last_modified_date: null });
  });

  it('subject revisions: GET /api/subjects/{login}/revisions shows the history from before the switch (who, when, what), the service carries on after it', async () => {
    const state = async () => ({
      ...pickKeys(await dump(target.sql), ['subjects', 'sources', 'revisions', 'revisionChanges', 'bookkeeping']),
      audit: await target.sql`select 'subject' as t, id::int, last_modified_by, last_modified_date from management.subjects
        union all select 'source', id::int, last_modified_by, last_modified_date from management.sources order by 1, 2`,
    });
    const saved = await state();
    await withApp(target.url, async (app) => {
      const mp = managementClient(app);
      const adminToken = await mp.tokenOf('admin', 'source-admin-pw');
      const res = await mp.call('GET', '/api/subjects/sub-x/revisions?sort=id,asc', { bearer: adminToken });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject([
        { id: 102, timestamp: '2022-03-03T09:00:00.000Z', author: 'alice', revisionType: 'ADD', entity: {
          id: 1030, login: 'sub-x', externalId: 'EXT-0', externalLink: null, status: 'ACTIVATED', group: null, personName: 'Zoe',
          enrollmentDate: '2021-04-01T08:00:00.000Z', dateOfBirth: null, attributes: { site: 'A' }, sources: [],
          project: { id: 1002, projectName: 'study-a' }, roles: [{ id: 1010, projectId: 1002, projectName: 'study-a', authorityName: 'ROLE_PARTICIPANT' }],
        } },
        { id: 152, timestamp: '2022-04-04T10:00:00.000Z', author: 'admin', revisionType: 'MOD', entity: {
          externalId: 'EXT-1', externalLink: 'https://example.org/p/1', group: 'Gruppe Ä', personName: 'Zoë 🙂', dateOfBirth: '1990-12-31',
          attributes: { site: 'A', ключ: 'значение' },
          sources: [{ id: 1040, sourceId: '8f1b1b7e-5c36-4a58-9f9e-6e2f0a1c2b3d', sourceName: 'aRMT-α', assigned: true, sourceTypeModel: 'aRMT-App', attributes: { firmware: '1.2.3' } }],
        } },
      ]);
      expect(res.body).toHaveLength(2);
      // What the subject page's history shows (newest first): who, when, and old → new per field.
      expect(historyOf([...res.body].reverse(), false)).toEqual([
        { id: 152, timestamp: '2022-04-04T10:00:00.000Z', author: 'admin', revisionType: 'MOD', changes: [
          { field: 'externalId', old: 'EXT-0', new: 'EXT-1' }, { field: 'externalLink', old: '', new: 'https://example.org/p/1' },
          { field: 'personName', old: 'Zoe', new: 'Zoë 🙂' }, { field: 'dateOfBirth', old: '', new: '1990-12-31' },
          { field: 'group', old: '', new: 'Gruppe Ä' }, { field: 'sources', old: '', new: 'aRMT-α' },
          { field: 'attributes.ключ', old: '', new: 'значение' },
        ] },
        { id: 102, timestamp: '2022-03-03T09:00:00.000Z', author: 'alice', revisionType: 'ADD', changes: expect.arrayContaining([
          { field: 'login', old: '', new: 'sub-x' }, { field: 'project', old: '', new: 'study-a' }, { field: 'status', old: '', new: 'ACTIVATED' },
        ]) },
      ]);
      const at = await mp.call('GET', '/api/subjects/sub-x/revisions/102', { bearer: adminToken });
      expect([at.status, at.body.externalId, at.body.personName]).toEqual([200, 'EXT-0', 'Zoe']);
      // A subject deleted before the switch: its history is still read by login.
      const gone = await mp.call('GET', '/api/subjects/sub-gone/revisions/102', { bearer: adminToken });
      expect([gone.status, gone.body.externalId, gone.body.attributes]).toEqual([200, 'GONE', { k: 'x' }]);
      expect((await mp.call('GET', '/api/subjects/sub-gone/revisions/202', { bearer: adminToken })).status).toBe(404);

      // A change made here after the switch is the next revision, after the imported ones.
      const subject = (await mp.call('GET', '/api/subjects/sub-x', { bearer: adminToken })).body;
      const put = await mp.call('PUT', '/api/subjects', { bearer: adminToken, body: { ...subject, externalId: 'EXT-2' } });
      expect(put.status).toBe(200);
      const after = await mp.call('GET', '/api/subjects/sub-x/revisions?sort=id,asc', { bearer: adminToken });
      expect(after.body.map((r: { id: number; author: string; entity: { externalId: string } }) => [r.author, r.entity.externalId]))
        .toEqual([['alice', 'EXT-0'], ['admin', 'EXT-1'], ['admin', 'EXT-2']]);
      expect(after.body[2].id).toBeGreaterThan(202);
      // Undo, through the source's content (the next test expects the import's own state).
      await mp.call('PUT', '/api/subjects', { bearer: adminToken, body: { ...subject, externalId: 'EXT-1' } });
    });
    // Back to the import's own state (the next tests expect it): the revisions and the changes made here.
    await target.sql`delete from management.revisions where id > 202`;
    await target.sql`update management.subjects set last_modified_by = 'admin', last_modified_date = '2022-04-04T10:00:00Z' where id = 1030`;
    await target.sql`update management.sources set last_modified_by = 'admin', last_modified_date = '2022-04-04T10:00:00Z' where id = 1040`;
    const restored = await state();
    expect(restored).toEqual(saved);
  });

  it('a second import changes nothing; a changed source is updated and a deleted row deleted', async () => {
    const before = await dump(target.sql);
    const again = await importInto(target.url, source.url);
    expect(again.ok).toBe(true);
    for (const t of Object.values(again.tables)) expect(t).toMatchObject({ imported: 0, updated: 0, deleted: 0, unchanged: t.read });
    expect(await dump(target.sql)).toEqual(before);

    await source.sql`update subject_metadata set attribute_value = 'B' where id = 1030 and attribute_key = 'site'`;
    await source.sql`delete from radar_source where id = 1041`;
    const changed = await importInto(target.url, source.url);
    expect(changed.tables['managementportal.subject']).toMatchObject({ updated: 1, deleted: 0, unchanged: 2 + BULK });
    expect(changed.tables['managementportal.radar_source']).toMatchObject({ updated: 0, deleted: 1, unchanged: 1 });
    expect(await target.sql`select attributes from management.subjects where id = 1030`).toEqual([{ attributes: { ключ: 'значение', site: 'B' } }]);
    expect(await target.sql`select id::int from management.sources`).toEqual([{ id: 1040 }]);
  });

  it('--verify passes after the import and lists a planted mismatch', async () => {
    const verify = () => verifyImport({ target: { kind: 'postgres', url: target.url, poolSize: 1 }, managementportal: source.url });
    const passed = await verify();
    expect(Object.fromEntries(Object.entries(passed.tables).filter(([, t]) => t.mismatches.length > 0))).toEqual({});
    expect(passed.ok).toBe(true);
    expect(passed.tables['managementportal.subject']).toEqual({ sourceRows: 3 + BULK, importedRows: 3 + BULK, sampled: 3 + BULK, mismatches: [] });

    await target.sql`update management.subjects set person_name = 'Planted' where id = 1030`;
    const failed = await verify();
    expect(failed.ok).toBe(false);
    expect(failed.tables['managementportal.subject']!.mismatches).toEqual([{ key: '1030', reason: 'differs in person_name' }]);
    await target.sql`update management.subjects set person_name = 'Zoë 🙂' where id = 1030`;
  });

  it('ManagementPortal v3.0.0 (its user identity column): the same import, passwords sign in, a linked identity is noted', async () => {
    const v3 = await database('empty');
    const into = await database('migrated');
    opened.push(v3.sql, into.sql);
    await fillSource(v3.sql);
    await v3.sql.unsafe(FIXTURE_V3);
    await v3.sql`update radar_user set identity = '3f1a6f0e-2b8c-4d7e-9a51-0c2d4e6f8a10' where login = 'sub-x'`;
    await v3.sql`update radar_user_aud set identity = '3f1a6f0e-2b8c-4d7e-9a51-0c2d4e6f8a10' where id = 1021`;
    const report = await importInto(into.url, v3.url);
    expect(skips(report)).toEqual({});
    expect(report).toMatchObject({
      ok: true, versions: { managementportal: '3.0.0' },
      notes: [expect.stringContaining('1 users are linked to an identity of an external identity server (radar_user.identity)')],
    });
    expect(report.tables['managementportal.radar_user']).toMatchObject({ read: 5 + BULK, imported: 5 + BULK });
    expect(report.tables['managementportal.subject_aud']).toMatchObject({ read: 4, imported: 4 });
    const verified = await verifyImport({ target: { kind: 'postgres', url: into.url, poolSize: 1 }, managementportal: v3.url });
    expect(Object.fromEntries(Object.entries(verified.tables).filter(([, t]) => t.mismatches.length > 0))).toEqual({});
    await withApp(into.url, async (app) => {
      const mp = managementClient(app);
      expect(await mp.token({ grant_type: 'password', username: 'alice', password: 'alice-pw' }, basic('legacy-client', 'legacy-secret')))
        .toMatchObject({ status: 200, token_type: 'bearer' });
    });
  });

  it('subject revisions keep their ids and order when the target has revisions of its own with those ids (a catalogue import at its first start)', async () => {
    const into = await database('migrated');
    opened.push(into.sql);
    await into.sql`insert into management.revisions (id, "timestamp", author) values (102, '2026-01-01T00:00:00Z', 'system')`;
    await into.sql`insert into management.revision_changes (revision_id, entity_type, entity_id, entity_key, revision_type, entity)
      values (102, 'sourceType', 7, 'RADAR_E4_v1', 'ADD', '{"id": 7}')`;
    const report = await importInto(into.url, source.url);
    expect(skips(report)).toEqual({});
    expect(await into.sql`select r.id::int, r.author, c.entity_type, c.entity_id::int from management.revisions r
      join management.revision_changes c on c.revision_id = r.id order by r.id, c.entity_id`).toEqual([
      { id: 102, author: 'alice', entity_type: 'subject', entity_id: 1030 }, { id: 102, author: 'alice', entity_type: 'subject', entity_id: 1099 },
      { id: 152, author: 'admin', entity_type: 'subject', entity_id: 1030 }, { id: 202, author: 'system', entity_type: 'subject', entity_id: 1099 },
      { id: 203, author: 'system', entity_type: 'sourceType', entity_id: 7 },
    ]);
    const again = await importInto(into.url, source.url);
    expect(again.tables['managementportal._revisions_info']).toMatchObject({ imported: 0, updated: 0, deleted: 0, unchanged: 3 });
    const [next] = await into.sql`select nextval(pg_get_serial_sequence('management.revisions', 'id'))::int as id`;
    expect(next!.id).toBe(204);
  });

  it('refuses a target that is not a new installation', async () => {
    const used = await database('migrated');
    opened.push(used.sql);
    await used.sql`insert into management.users (login, activated) values ('bob', true)`;
    await expect(importInto(used.url, source.url)).rejects.toThrow(TargetNotNew);
    await expect(importInto(used.url, source.url)).rejects.toThrow('management.users: 1 rows');
  });

  it('reports a conflicting client and skips it (exit non-zero) unless --overwrite', async () => {
    const other = await database('migrated');
    opened.push(other.sql);
    await other.sql`insert into management.oauth_client_details (client_id, scope) values ('legacy-client', '{SUBJECT.READ}')`;
    const report = await importInto(other.url, source.url);
    expect(skips(report)).toEqual({
      'managementportal.oauth_client_details': [{
        key: 'legacy-client', error: true, reason: 'conflict: row legacy-client has the same id and key with different content here (--overwrite replaces it)',
      }],
    });
    expect(report).toMatchObject({ ok: false, skippedForError: 1 });
    const overwritten = await importInto(other.url, source.url, { overwrite: true });
    expect(overwritten.ok).toBe(true);
    expect(await other.sql`select scope from management.oauth_client_details where client_id = 'legacy-client'`)
      .toEqual([{ scope: ['SUBJECT.READ', 'PROJECT.READ', 'MEASUREMENT.CREATE'] }]);
  });

  it('npm run import killed with SIGKILL half-way and run again equals one uninterrupted run', async () => {
    const killed = await database('migrated');
    const clean = await database('migrated');
    opened.push(killed.sql, clean.sql);
    const cli = (url: string, extra: string[] = []) => spawn(process.execPath, ['--import', 'tsx', 'src/import/cli.ts', '--managementportal', source.url, ...extra], {
      cwd: root, env: { ...process.env, ENV_FILE: '', PROFILE: 'dev', DATABASE_URL: url }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exit = (child: ReturnType<typeof spawn>) => new Promise<{ code: number | null; signal: NodeJS.Signals | null; out: string }>((resolve) => {
      let out = '';
      child.stdout!.on('data', (d) => { out += String(d); });
      child.stderr!.on('data', (d) => { out += String(d); });
      child.on('exit', (code, signal) => resolve({ code, signal, out }));
    });

    const first = cli(killed.url, ['--batch-size', '1']);
    const firstExit = exit(first);
    await until(async () => {
      const [row] = await killed.sql`select count(*)::int as n from import.imported_rows where source_table = 'radar_user'`;
      expect(row!.n).toBeGreaterThan(20);
    });
    first.kill('SIGKILL');
    expect((await firstExit).signal).toBe('SIGKILL');
    const [partial] = await killed.sql`select count(*)::int as n from import.imported_rows`;
    expect(partial!.n).toBeLessThan(5 + BULK + 7 + BULK);

    const reportFile = join(mkdtempSync(join(tmpdir(), 'radar-import-')), 'report.json');
    const [resumed, uninterrupted] = await Promise.all([exit(cli(killed.url)), exit(cli(clean.url, ['--report', reportFile]))]);
    expect([resumed.code, resumed.out]).toEqual([0, expect.stringContaining(`managementportal.radar_user: read ${5 + BULK}, imported `)]);
    expect([uninterrupted.code, uninterrupted.out]).toEqual([0, expect.stringContaining('done; 0 rows skipped for an error')]);
    const report = JSON.parse(readFileSync(reportFile, 'utf8')) as ImportReport;
    expect(report).toMatchObject({ ok: true, dryRun: false, skippedForError: 0 });
    expect(report.tables['managementportal.radar_user']).toMatchObject({ read: 5 + BULK, imported: 5 + BULK, updated: 0, unchanged: 0, deleted: 0, skipped: [] });
    expect(await dump(killed.sql)).toEqual(await dump(clean.sql));
  });
});
