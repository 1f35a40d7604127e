/**
 * The management domain's tables (ManagementPortal's data model, managementportal.md §7), in
 * `pgSchema('management')`. This slice creates what the OAuth server needs: users, authorities,
 * roles, organizations, projects, groups, subjects, source types and their data, sources, entity
 * revisions, OAuth clients, refresh-token rotation state, pairing meta-tokens and audit events.
 *
 * Deliberate differences from the reference's Liquibase schema: `bigserial` ids instead of one
 * `hibernate_sequence`; every instant is `timestamptz`; the audit event's data is one `jsonb`
 * column instead of the `jhi_persistent_audit_evt_data` side table; refresh tokens are tracked
 * (the reference stored none, so it could not make them single-use).
 */
import { sql } from 'drizzle-orm';
import { bigint, bigserial, boolean, check, date, index, integer, jsonb, pgSchema, primaryKey, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { timestamptz } from '../platform/db-columns.js';

export const management = pgSchema('management');

/** Who created and last changed a row, and when (the reference's JHipster audit columns). */
const audited = () => ({
  createdBy: text('created_by').notNull().default('system'),
  createdDate: timestamptz('created_date').notNull().defaultNow(),
  lastModifiedBy: text('last_modified_by'),
  lastModifiedDate: timestamptz('last_modified_date'),
});

export const users = management.table('users', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  /** Lower-cased, `^[_'.@A-Za-z0-9- ]*$`. */
  login: text('login').notNull(),
  /** bcrypt; null for accounts that cannot sign in with a password (participants). */
  passwordHash: text('password_hash'),
  firstName: text('first_name'),
  lastName: text('last_name'),
  email: text('email'),
  activated: boolean('activated').notNull().default(false),
  langKey: text('lang_key'),
  activationKey: text('activation_key'),
  resetKey: text('reset_key'),
  resetDate: timestamptz('reset_date'),
  /**
   * When the user's credentials were last ended (password change or reset, deactivation, a role
   * taken away): a refresh token signed before it by the reference ManagementPortal, which this
   * service never recorded, is refused (oauth/refresh-tokens.ts).
   */
  credentialsEndedAt: timestamptz('credentials_ended_at'),
  ...audited(),
}, (t) => [
  uniqueIndex('users_login_key').on(t.login),
  uniqueIndex('users_email_key').on(t.email),
]);
export type UserRow = typeof users.$inferSelect;

/** The eight `ROLE_*` names (authz/permissions.ts). */
export const authorities = management.table('authorities', {
  name: text('name').primaryKey(),
});

export const organizations = management.table('organizations', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  name: text('name').notNull(),
  description: text('description').notNull(),
  location: text('location').notNull(),
  ...audited(),
}, (t) => [uniqueIndex('organizations_name_key').on(t.name)]);
export type OrganizationRow = typeof organizations.$inferSelect;
export type NewOrganization = typeof organizations.$inferInsert;

export const PROJECT_STATUSES = ['PLANNING', 'ONGOING', 'ENDED'] as const;
export type ProjectStatus = (typeof PROJECT_STATUSES)[number];

export const projects = management.table('projects', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  projectName: text('project_name').notNull(),
  description: text('description').notNull(),
  /** The reference's legacy free-text organization name (`jhi_organization`). */
  organizationName: text('organization_name'),
  // A deleted organization takes its projects with it, as in the reference (ON DELETE CASCADE).
  organizationId: bigint('organization_id', { mode: 'number' }).references(() => organizations.id, { onDelete: 'cascade' }),
  location: text('location').notNull(),
  startDate: timestamptz('start_date'),
  endDate: timestamptz('end_date'),
  projectStatus: text('project_status').$type<ProjectStatus>(),
  /** The reference's `project_metadata` map (`Privacy-policy-url`, `Human-readable-project-name`, …). */
  attributes: jsonb('attributes').$type<Record<string, string>>().notNull().default({}),
  ...audited(),
}, (t) => [uniqueIndex('projects_project_name_key').on(t.projectName)]);
export type ProjectRow = typeof projects.$inferSelect;
export type NewProject = typeof projects.$inferInsert;

/** Groups of subjects within a project (the reference's `radar_group`). */
export const groups = management.table('groups', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  projectId: bigint('project_id', { mode: 'number' }).notNull().references(() => projects.id, { onDelete: 'cascade' }),
  name: text('name').notNull(),
}, (t) => [uniqueIndex('groups_project_name_key').on(t.projectId, t.name)]);
export type GroupRow = typeof groups.$inferSelect;

/**
 * One row per (authority, project | organization | global); users share it through `role_users`.
 * Project and organization are both null for a global role (ROLE_SYS_ADMIN).
 */
export const roles = management.table('roles', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  authorityName: text('authority_name').notNull().references(() => authorities.name),
  // A deleted project or organization takes its roles (and their memberships) with it.
  projectId: bigint('project_id', { mode: 'number' }).references(() => projects.id, { onDelete: 'cascade' }),
  organizationId: bigint('organization_id', { mode: 'number' }).references(() => organizations.id, { onDelete: 'cascade' }),
}, (t) => [
  uniqueIndex('roles_project_authority_key').on(t.projectId, t.authorityName),
  uniqueIndex('roles_organization_authority_key').on(t.organizationId, t.authorityName),
  // NULLs are distinct in a unique index: global roles need their own (PostgreSQL 15 has no NULLS NOT DISTINCT everywhere we run).
  uniqueIndex('roles_global_authority_key').on(t.authorityName).where(sql`project_id is null and organization_id is null`),
  check('roles_one_referent', sql`project_id is null or organization_id is null`),
]);

export const roleUsers = management.table('role_users', {
  // A deleted user leaves its roles; a deleted role leaves its users.
  userId: bigint('user_id', { mode: 'number' }).notNull().references(() => users.id, { onDelete: 'cascade' }),
  roleId: bigint('role_id', { mode: 'number' }).notNull().references(() => roles.id, { onDelete: 'cascade' }),
}, (t) => [
  primaryKey({ name: 'role_users_pkey', columns: [t.userId, t.roleId] }),
  index('role_users_role_id_idx').on(t.roleId),
]);

export const subjects = management.table('subjects', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  // The subject is its user's participant record: deleting the user deletes the subject.
  userId: bigint('user_id', { mode: 'number' }).notNull().references(() => users.id, { onDelete: 'cascade' }),
  externalLink: text('external_link'),
  externalId: text('external_id'),
  removed: boolean('removed').notNull().default(false),
  dateOfBirth: date('date_of_birth', { mode: 'string' }),
  enrollmentDate: timestamptz('enrollment_date'),
  personName: text('person_name'),
  attributes: jsonb('attributes').$type<Record<string, string>>().notNull().default({}),
  groupId: bigint('group_id', { mode: 'number' }).references(() => groups.id, { onDelete: 'set null' }),
  ...audited(),
}, (t) => [
  uniqueIndex('subjects_user_id_key').on(t.userId),
  index('subjects_external_id_idx').on(t.externalId),
  index('subjects_group_id_idx').on(t.groupId),
  index('subjects_enrollment_date_idx').on(t.enrollmentDate),
  index('subjects_date_of_birth_idx').on(t.dateOfBirth),
]);

export const sourceTypes = management.table('source_types', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  producer: text('producer').notNull(),
  model: text('model').notNull(),
  catalogVersion: text('catalog_version').notNull(),
  sourceTypeScope: text('source_type_scope').notNull(),
  canRegisterDynamically: boolean('dynamic_registration').notNull().default(false),
  name: text('name'),
  description: text('description'),
  assessmentType: text('assessment_type'),
  appProvider: text('app_provider'),
  ...audited(),
}, (t) => [uniqueIndex('source_types_producer_model_version_key').on(t.producer, t.model, t.catalogVersion)]);
export type SourceTypeRow = typeof sourceTypes.$inferSelect;
export type SourceTypeInsert = typeof sourceTypes.$inferInsert;

/** The topics a source type produces (the reference's `source_data`); deleted with their type. */
export const sourceData = management.table('source_data', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  sourceDataType: text('source_data_type').notNull(),
  sourceDataName: text('source_data_name').notNull(),
  frequency: text('frequency'),
  unit: text('unit'),
  processingState: text('processing_state'),
  dataClass: text('data_class'),
  keySchema: text('key_schema'),
  valueSchema: text('value_schema'),
  topic: text('topic'),
  provider: text('provider'),
  enabled: boolean('enabled').notNull().default(true),
  sourceTypeId: bigint('source_type_id', { mode: 'number' }).references(() => sourceTypes.id, { onDelete: 'cascade' }),
  ...audited(),
}, (t) => [
  uniqueIndex('source_data_name_key').on(t.sourceDataName),
  index('source_data_source_type_id_idx').on(t.sourceTypeId),
]);
export type SourceDataRow = typeof sourceData.$inferSelect;
export type SourceDataInsert = typeof sourceData.$inferInsert;

/** Which source types a project uses (the reference's `project_source_type`). */
export const projectSourceTypes = management.table('project_source_types', {
  projectId: bigint('project_id', { mode: 'number' }).notNull().references(() => projects.id, { onDelete: 'cascade' }),
  sourceTypeId: bigint('source_type_id', { mode: 'number' }).notNull().references(() => sourceTypes.id, { onDelete: 'cascade' }),
}, (t) => [
  primaryKey({ name: 'project_source_types_pkey', columns: [t.projectId, t.sourceTypeId] }),
  index('project_source_types_source_type_id_idx').on(t.sourceTypeId),
]);

export const sources = management.table('sources', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  sourceId: uuid('source_id').notNull().default(sql`gen_random_uuid()`),
  sourceName: text('source_name').notNull(),
  expectedSourceName: text('expected_source_name'),
  assigned: boolean('assigned').notNull().default(false),
  deleted: boolean('deleted').notNull().default(false),
  sourceTypeId: bigint('source_type_id', { mode: 'number' }).references(() => sourceTypes.id),
  projectId: bigint('project_id', { mode: 'number' }).references(() => projects.id, { onDelete: 'set null' }),
  // A deleted subject releases its sources rather than deleting the records of the devices.
  subjectId: bigint('subject_id', { mode: 'number' }).references(() => subjects.id, { onDelete: 'set null' }),
  attributes: jsonb('attributes').$type<Record<string, string>>().notNull().default({}),
  ...audited(),
}, (t) => [
  uniqueIndex('sources_source_id_key').on(t.sourceId),
  uniqueIndex('sources_source_name_key').on(t.sourceName),
  index('sources_subject_id_idx').on(t.subjectId),
  index('sources_project_id_idx').on(t.projectId),
]);
export type SourceRow = typeof sources.$inferSelect;
export type SourceInsert = typeof sources.$inferInsert;

export const REVISION_TYPES = ['ADD', 'MOD', 'DEL'] as const;
export type RevisionType = (typeof REVISION_TYPES)[number];

/**
 * Entity history (the reference's Envers `_revisions_info` + `<table>_aud`): one revision per
 * changing request, with author and time.
 */
export const revisions = management.table('revisions', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  timestamp: timestamptz('timestamp').notNull().defaultNow(),
  author: text('author').notNull(),
});
export type RevisionRow = typeof revisions.$inferSelect;

/**
 * What one revision changed: per entity, the kind of change and the entity's DTO as it was after
 * the change (before it, for a delete), so the history of deleted entities stays readable.
 * `entity_key` is the entity's natural key (subject login, project name, …) for look-ups by path.
 */
export const revisionChanges = management.table('revision_changes', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  revisionId: bigint('revision_id', { mode: 'number' }).notNull().references(() => revisions.id, { onDelete: 'cascade' }),
  entityType: text('entity_type').notNull(),
  entityId: bigint('entity_id', { mode: 'number' }).notNull(),
  entityKey: text('entity_key'),
  revisionType: text('revision_type').$type<RevisionType>().notNull(),
  entity: jsonb('entity').$type<Record<string, unknown>>().notNull(),
}, (t) => [
  index('revision_changes_revision_id_idx').on(t.revisionId),
  index('revision_changes_entity_idx').on(t.entityType, t.entityId, t.revisionId),
  index('revision_changes_key_idx').on(t.entityType, t.entityKey, t.revisionId),
  check('revision_changes_type', sql`revision_type in ('ADD', 'MOD', 'DEL')`),
]);
export type RevisionChangeRow = typeof revisionChanges.$inferSelect;

/**
 * OAuth clients (the reference's `oauth_client_details`), lists as text arrays instead of comma
 * strings. `client_secret` is a bcrypt hash, or null for a public client.
 */
export const oauthClients = management.table('oauth_client_details', {
  clientId: text('client_id').primaryKey(),
  resourceIds: text('resource_ids').array().notNull().default(sql`'{}'::text[]`),
  clientSecret: text('client_secret'),
  scope: text('scope').array().notNull().default(sql`'{}'::text[]`),
  authorizedGrantTypes: text('authorized_grant_types').array().notNull().default(sql`'{}'::text[]`),
  redirectUris: text('web_server_redirect_uri').array().notNull().default(sql`'{}'::text[]`),
  authorities: text('authorities').array().notNull().default(sql`'{}'::text[]`),
  accessTokenValidity: integer('access_token_validity'),
  refreshTokenValidity: integer('refresh_token_validity'),
  additionalInformation: jsonb('additional_information').$type<Record<string, unknown>>().notNull().default({}),
  /** Auto-approved scopes; `['true']` approves all. */
  autoApprove: text('autoapprove').array().notNull().default(sql`'{}'::text[]`),
  updatedAt: timestamptz('updated_at').notNull().defaultNow(),
});
export type OAuthClientRow = typeof oauthClients.$inferSelect;
export type OAuthClientInsert = typeof oauthClients.$inferInsert;

/**
 * Every refresh token issued, so each is valid once. A chain of rotations shares `family_id`
 * (the jti of the chain's first refresh token); reuse of a used token revokes the family.
 */
export const refreshTokens = management.table('refresh_tokens', {
  jti: text('jti').primaryKey(),
  familyId: text('family_id').notNull(),
  parentJti: text('parent_jti'),
  clientId: text('client_id').notNull(),
  userLogin: text('user_login'),
  issuedAt: timestamptz('issued_at').notNull().defaultNow(),
  expiresAt: timestamptz('expires_at').notNull(),
  usedAt: timestamptz('used_at'),
  revokedAt: timestamptz('revoked_at'),
}, (t) => [
  index('refresh_tokens_family_id_idx').on(t.familyId),
  index('refresh_tokens_expires_at_idx').on(t.expiresAt),
]);
export type RefreshTokenInsert = typeof refreshTokens.$inferInsert;

/** The reference's `jhi_persistent_audit_event` with its data map as jsonb. */
export const auditEvents = management.table('audit_events', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  principal: text('principal').notNull(),
  eventDate: timestamptz('event_date').notNull().defaultNow(),
  eventType: text('event_type').notNull(),
  data: jsonb('data').$type<Record<string, string>>().notNull().default({}),
  /** The actor's address as Fastify saw it (X-Forwarded-For only behind a trusted proxy); null when not from a request. */
  actorAddress: text('actor_address'),
  /** What the event is about: entity type (`subject`, `user`, `oauthClient`…) and its id, login or name. */
  targetType: text('target_type'),
  targetId: text('target_id'),
  /** For a change: field → old and new value (a secret field only by name, `redacted`). */
  changes: jsonb('changes').$type<Record<string, AuditFieldChange>>(),
}, (t) => [
  index('audit_events_principal_date_idx').on(t.principal, t.eventDate),
  index('audit_events_date_idx').on(t.eventDate),
  // Filter by target, newest first by id (the audit page's keyset).
  index('audit_events_target_idx').on(t.targetType, t.targetId, t.id),
]);

/** One changed field of an audited change; a secret field carries neither value. */
export interface AuditFieldChange { old?: unknown; new?: unknown; redacted?: true }
export type AuditEventRow = typeof auditEvents.$inferSelect;

/** The authorization request a sign-in session is answering, validated (oauth/authorize). */
export interface PendingAuthorization {
  /**
   * Random id of this request, carried by its sign-in and consent forms: an answer to a request
   * that is no longer the session's pending one is refused (so is one stored before this field existed).
   */
  requestId: string;
  clientId: string;
  /** The registered redirect URI the code goes to. */
  redirectUri: string;
  /** Whether the request named `redirect_uri`; the token request must then repeat it (RFC 6749 §4.1.3). */
  redirectUriGiven: boolean;
  state: string | null;
  scope: string[];
  codeChallenge: string | null;
  codeChallengeMethod: 'S256' | null;
}

/**
 * Server-side sessions of the sign-in and consent pages. `id` is the SHA-256 of the session id the
 * signed cookie carries, so a leaked table does not hand out live sessions.
 */
export const oauthSessions = management.table('oauth_sessions', {
  id: text('id').primaryKey(),
  csrfToken: text('csrf_token').notNull(),
  userLogin: text('user_login'),
  authenticatedAt: timestamptz('authenticated_at'),
  pending: jsonb('pending').$type<PendingAuthorization>(),
  createdAt: timestamptz('created_at').notNull().defaultNow(),
  expiresAt: timestamptz('expires_at').notNull(),
}, (t) => [index('oauth_sessions_expires_at_idx').on(t.expiresAt)]);
export type SessionRow = typeof oauthSessions.$inferSelect;

/**
 * Authorization codes (the reference's `oauth_code`), stored as SHA-256 hashes and valid once.
 * `family_id` is the refresh-token chain the code started, revoked when the code is presented again.
 */
export const oauthCodes = management.table('oauth_codes', {
  codeHash: text('code_hash').primaryKey(),
  clientId: text('client_id').notNull(),
  userLogin: text('user_login').notNull(),
  redirectUri: text('redirect_uri').notNull(),
  redirectUriGiven: boolean('redirect_uri_given').notNull(),
  scope: text('scope').array().notNull().default(sql`'{}'::text[]`),
  codeChallenge: text('code_challenge'),
  codeChallengeMethod: text('code_challenge_method').$type<'S256'>(),
  familyId: text('family_id'),
  createdAt: timestamptz('created_at').notNull().defaultNow(),
  expiresAt: timestamptz('expires_at').notNull(),
  usedAt: timestamptz('used_at'),
}, (t) => [index('oauth_codes_expires_at_idx').on(t.expiresAt)]);
export type CodeRow = typeof oauthCodes.$inferSelect;

/**
 * Remembered answers of the consent page (the reference's `oauth_approvals`): one row per user,
 * client and scope, `APPROVED` or `DENIED`, until `expires_at`. A user who approved every scope a
 * client asks for is not asked again. They go with their user or client.
 */
export const oauthApprovals = management.table('oauth_approvals', {
  userId: bigint('user_id', { mode: 'number' }).notNull().references(() => users.id, { onDelete: 'cascade' }),
  clientId: text('client_id').notNull().references(() => oauthClients.clientId, { onDelete: 'cascade' }),
  scope: text('scope').notNull(),
  status: text('status').$type<'APPROVED' | 'DENIED'>().notNull(),
  expiresAt: timestamptz('expires_at').notNull(),
  lastModifiedAt: timestamptz('last_modified_at').notNull().defaultNow(),
}, (t) => [
  primaryKey({ columns: [t.userId, t.clientId, t.scope] }),
  index('oauth_approvals_expires_at_idx').on(t.expiresAt),
]);

/**
 * Pairing meta-tokens (the reference's `radar_meta_token`): a short name that hands a new refresh
 * token of `client_id` for the subject's account to the app that reads it. Valid while
 * `(persistent or not fetched) and now < expiry_date`; deleted with the subject.
 */
export const metaTokens = management.table('meta_tokens', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  tokenName: text('token_name').notNull(),
  fetched: boolean('fetched').notNull().default(false),
  expiryDate: timestamptz('expiry_date').notNull(),
  subjectId: bigint('subject_id', { mode: 'number' }).notNull().references(() => subjects.id, { onDelete: 'cascade' }),
  clientId: text('client_id').notNull(),
  persistent: boolean('persistent').notNull().default(false),
  createdAt: timestamptz('created_at').notNull().defaultNow(),
}, (t) => [
  uniqueIndex('meta_tokens_token_name_key').on(t.tokenName),
  index('meta_tokens_subject_id_idx').on(t.subjectId),
  index('meta_tokens_expiry_date_idx').on(t.expiryDate),
]);
export type MetaTokenRow = typeof metaTokens.$inferSelect;

/** Secrets generated at the first start and shared by every instance (the session-cookie key). */
export const serverSecrets = management.table('server_secrets', {
  name: text('name').primaryKey(),
  value: text('value').notNull(),
  createdAt: timestamptz('created_at').notNull().defaultNow(),
});
