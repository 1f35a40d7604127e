/**
 * SQL for subjects: look-ups, the keyset-paged lists of `SubjectCriteria`, participant roles and
 * the sources a subject holds. Plain functions; no rules here.
 *
 * A subject's project is the project of its user's `ROLE_PARTICIPANT` role (the "active"
 * project); after a move the old project's role is `ROLE_INACTIVE_PARTICIPANT` (the "associated"
 * project when there is no active one).
 */
import { and, asc, type Column, count, desc, eq, gt, gte, ilike, inArray, isNotNull, isNull, lt, lte, or, sql, type SQL } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import { renderedOnce, type Executor } from '../../../platform/database.js';
import {
  authorities, groups, organizations, projects, projectSourceTypes, revisionChanges, revisions, roles, roleUsers, sources, sourceTypes, subjects,
  users, type SourceRow, type SourceTypeRow, type RevisionChangeRow,
} from '../../schema.js';
import type { Range, SubjectCriteria, SubjectCursor, SubjectOrder } from './criteria.js';

/** A subject with what its DTO needs of its user and group. */
export interface SubjectRow {
  id: number;
  userId: number;
  login: string;
  activated: boolean;
  removed: boolean;
  externalLink: string | null;
  externalId: string | null;
  dateOfBirth: string | null;
  enrollmentDate: Date | null;
  personName: string | null;
  attributes: Record<string, string>;
  groupId: number | null;
  groupName: string | null;
  createdBy: string;
  createdDate: Date;
  lastModifiedBy: string | null;
  lastModifiedDate: Date | null;
}

const subjectColumns = {
  id: subjects.id, userId: subjects.userId, login: users.login, activated: users.activated, removed: subjects.removed,
  externalLink: subjects.externalLink, externalId: subjects.externalId, dateOfBirth: subjects.dateOfBirth,
  enrollmentDate: subjects.enrollmentDate, personName: subjects.personName, attributes: subjects.attributes,
  groupId: subjects.groupId, groupName: groups.name,
  createdBy: subjects.createdBy, createdDate: subjects.createdDate, lastModifiedBy: subjects.lastModifiedBy, lastModifiedDate: subjects.lastModifiedDate,
};

function selectSubjects(db: Executor) {
  return db.select(subjectColumns).from(subjects)
    .innerJoin(users, eq(users.id, subjects.userId))
    .leftJoin(groups, eq(groups.id, subjects.groupId));
}

/**
 * `forUpdate` first locks the subject's row until the transaction ends (serializes changes of one
 * subject). A separate statement: `FOR UPDATE OF` cannot name a schema-qualified table.
 */
export async function findSubjectByLogin(db: Executor, login: string, forUpdate = false): Promise<SubjectRow | undefined> {
  if (forUpdate) {
    await db.select({ id: subjects.id }).from(subjects)
      .where(eq(subjects.userId, db.select({ id: users.id }).from(users).where(eq(users.login, login)))).for('update');
  }
  const [row] = await selectSubjects(db).where(eq(users.login, login)).limit(1);
  return row;
}

export async function findSubjectById(db: Executor, id: number, forUpdate = false): Promise<SubjectRow | undefined> {
  if (forUpdate) await db.select({ id: subjects.id }).from(subjects).where(eq(subjects.id, id)).for('update');
  const [row] = await selectSubjects(db).where(eq(subjects.id, id)).limit(1);
  return row;
}

export interface ProjectRef {
  id: number;
  projectName: string;
  organizationName: string | null;
}

const projectRefColumns = { id: projects.id, projectName: projects.projectName, organizationName: organizations.name };

export async function findProjectByName(db: Executor, projectName: string): Promise<ProjectRef | undefined> {
  const [row] = await db.select(projectRefColumns).from(projects)
    .leftJoin(organizations, eq(organizations.id, projects.organizationId))
    .where(eq(projects.projectName, projectName)).limit(1);
  return row;
}

/** The projects of a user's participant roles: the active one and the associated one (active, else inactive). */
export async function participantProjects(db: Executor, userId: number): Promise<{ active?: ProjectRef; associated?: ProjectRef }> {
  const rows = await db.select({ authority: roles.authorityName, ...projectRefColumns }).from(roleUsers)
    .innerJoin(roles, eq(roles.id, roleUsers.roleId))
    .innerJoin(projects, eq(projects.id, roles.projectId))
    .leftJoin(organizations, eq(organizations.id, projects.organizationId))
    .where(and(eq(roleUsers.userId, userId), inArray(roles.authorityName, ['ROLE_PARTICIPANT', 'ROLE_INACTIVE_PARTICIPANT'])))
    .orderBy(roles.id);
  const pick = (authority: string) => {
    const row = rows.find((r) => r.authority === authority);
    return row ? { id: row.id, projectName: row.projectName, organizationName: row.organizationName } : undefined;
  };
  const active = pick('ROLE_PARTICIPANT');
  const associated = active ?? pick('ROLE_INACTIVE_PARTICIPANT');
  return { ...(active ? { active } : {}), ...(associated ? { associated } : {}) };
}

/** The id of the role of `authority` on `projectId`, created (with its authority) when missing. */
export async function projectRoleId(db: Executor, authority: string, projectId: number): Promise<number> {
  const find = async () => (await db.select({ id: roles.id }).from(roles)
    .where(and(eq(roles.projectId, projectId), eq(roles.authorityName, authority))).limit(1))[0]?.id;
  const existing = await find();
  if (existing !== undefined) return existing;
  await db.insert(authorities).values({ name: authority }).onConflictDoNothing();
  await db.insert(roles).values({ authorityName: authority, projectId }).onConflictDoNothing();
  return (await find())!;
}

export async function addUserRole(db: Executor, userId: number, roleId: number): Promise<void> {
  await db.insert(roleUsers).values({ userId, roleId }).onConflictDoNothing();
}

/** The user's `ROLE_PARTICIPANT` roles on other projects than `keepProjectId`. */
export async function participantRolesElsewhere(db: Executor, userId: number, keepProjectId: number): Promise<{ roleId: number; projectId: number }[]> {
  const rows = await db.select({ roleId: roles.id, projectId: roles.projectId }).from(roleUsers)
    .innerJoin(roles, eq(roles.id, roleUsers.roleId))
    .where(and(eq(roleUsers.userId, userId), eq(roles.authorityName, 'ROLE_PARTICIPANT'), sql`${roles.projectId} <> ${keepProjectId}`));
  return rows.map((r) => ({ roleId: r.roleId, projectId: r.projectId! }));
}

export async function removeUserRole(db: Executor, userId: number, roleId: number): Promise<void> {
  await db.delete(roleUsers).where(and(eq(roleUsers.userId, userId), eq(roleUsers.roleId, roleId)));
}

export async function findGroupId(db: Executor, projectId: number, name: string): Promise<number | undefined> {
  const [row] = await db.select({ id: groups.id }).from(groups).where(and(eq(groups.projectId, projectId), eq(groups.name, name))).limit(1);
  return row?.id;
}

/** Whether another subject of the project (any participant role) has this external id. */
export async function externalIdTaken(db: Executor, projectId: number, externalId: string, exceptSubjectId?: number): Promise<boolean> {
  const [row] = await db.select({ id: subjects.id }).from(subjects)
    .innerJoin(roleUsers, eq(roleUsers.userId, subjects.userId))
    .innerJoin(roles, eq(roles.id, roleUsers.roleId))
    .where(and(
      eq(roles.projectId, projectId), eq(subjects.externalId, externalId),
      exceptSubjectId !== undefined ? sql`${subjects.id} <> ${exceptSubjectId}` : undefined,
    )).limit(1);
  return row !== undefined;
}

// ---- lists ----------------------------------------------------------------------------------

const escapeLike = (v: string) => v.replace(/[\\%_]/g, (c) => `\\${c}`);
const containing = (v: string) => `%${escapeLike(v.trim())}%`;

/**
 * The roles whose holders a list shows: `criteria.authorities` on the criteria's project, or on
 * any project. An `array(…)` subquery: computed once per statement (no look-up round trip), and
 * cheaper to plan than an `IN (…)` the planner would pull up into the join search.
 */
function listedRoles(c: SubjectCriteria): SQL {
  const project = c.projectName !== undefined
    ? sql`${roles.projectId} = (select ${projects.id} from ${projects} where ${projects.projectName} = ${c.projectName})`
    : isNotNull(roles.projectId);
  return sql`any(array(select ${roles.id} from ${roles} where ${inArray(roles.authorityName, [...c.authorities])} and ${project}))`;
}

function filterConditions(c: SubjectCriteria): SQL[] {
  const conditions: SQL[] = [
    // A semi-join: a subject holding two of the roles is listed once.
    sql`exists (select 1 from ${roleUsers} where ${roleUsers.userId} = ${subjects.userId} and ${roleUsers.roleId} = ${listedRoles(c)})`,
  ];
  if (c.externalId !== undefined) conditions.push(ilike(subjects.externalId, containing(c.externalId)));
  if (c.login !== undefined) conditions.push(ilike(users.login, containing(c.login)));
  if (c.personName !== undefined) conditions.push(ilike(subjects.personName, containing(c.personName)));
  if (c.humanReadableIdentifier !== undefined) {
    conditions.push(sql`${subjects.attributes}->>'Human-readable-identifier' like ${containing(c.humanReadableIdentifier)}`);
  }
  if (c.groupId !== undefined) conditions.push(eq(subjects.groupId, c.groupId));
  conditions.push(...inRange(subjects.dateOfBirth, c.dateOfBirth), ...inRange(subjects.enrollmentDate, c.enrollmentDate));
  return conditions;
}

/** The reference's `PredicateBuilder.range`: `is` alone, else `from` and/or `to` (inclusive). */
function inRange<T>(column: Column, range: Range<T> | undefined): SQL[] {
  if (!range) return [];
  if (range.is !== undefined) return [eq(column, range.is)];
  return [range.from !== undefined ? gte(column, range.from) : undefined, range.to !== undefined ? lte(column, range.to) : undefined]
    .filter((c): c is SQL => c !== undefined);
}

/** Whether the list filters on nothing but its roles (so counting role holders counts the list). */
const rolesOnly = (c: SubjectCriteria) => c.externalId === undefined && c.login === undefined && c.personName === undefined
  && c.humanReadableIdentifier === undefined && c.groupId === undefined && c.dateOfBirth === undefined && c.enrollmentDate === undefined;

const SORT_COLUMNS = { id: subjects.id, login: users.login, externalId: subjects.externalId } as const;

const orderBy = (sort: readonly SubjectOrder[]) => sort.map((o) => (o.direction === 'asc' ? asc(SORT_COLUMNS[o.key]) : desc(SORT_COLUMNS[o.key])));

/** Strictly after the cursor on a non-null key. */
function after(order: SubjectOrder, last: SubjectCursor): SQL {
  const value = order.key === 'id' ? last.id! : order.key === 'login' ? last.login! : last.externalId!;
  return order.direction === 'asc' ? gt(SORT_COLUMNS[order.key], value) : lt(SORT_COLUMNS[order.key], value);
}

/** What a list row carries besides the subject: its user's roles and its sources, as the DTOs list them. */
export interface ListedSubjectRow extends SubjectRow {
  roles: { id: number; authorityName: string; organizationId: number | null; organizationName: string | null; projectId: number | null; projectName: string | null }[];
  sources: {
    id: number; sourceTypeId: number | null; sourceTypeProducer: string | null; sourceTypeModel: string | null; sourceTypeCatalogVersion: string | null;
    expectedSourceName: string | null; sourceId: string; sourceName: string; assigned: boolean; attributes: Record<string, string>;
  }[];
}

const roleOrganizations = alias(organizations, 'role_organizations');
const roleProjects = alias(projects, 'role_projects');

/**
 * Roles and sources of each listed subject as JSON, in the page's own query (one round trip per
 * page). PostgreSQL evaluates them for the rows the LIMIT keeps.
 */
const listColumns = {
  ...subjectColumns,
  roles: renderedOnce(sql<ListedSubjectRow['roles']>`(select coalesce(json_agg(json_build_object(
      'id', ${roles.id}, 'authorityName', ${roles.authorityName}, 'organizationId', ${roles.organizationId},
      'organizationName', ${roleOrganizations.name}, 'projectId', ${roles.projectId}, 'projectName', ${roleProjects.projectName}
    ) order by ${roles.id}), '[]'::json)
    from ${roleUsers} join ${roles} on ${roles.id} = ${roleUsers.roleId}
    left join ${projects} as ${sql.identifier('role_projects')} on ${roleProjects.id} = ${roles.projectId}
    left join ${organizations} as ${sql.identifier('role_organizations')} on ${roleOrganizations.id} = ${roles.organizationId}
    where ${roleUsers.userId} = ${subjects.userId})`),
  sources: renderedOnce(sql<ListedSubjectRow['sources']>`(select coalesce(json_agg(json_build_object(
      'id', ${sources.id}, 'sourceTypeId', ${sourceTypes.id}, 'sourceTypeProducer', ${sourceTypes.producer},
      'sourceTypeModel', ${sourceTypes.model}, 'sourceTypeCatalogVersion', ${sourceTypes.catalogVersion},
      'expectedSourceName', ${sources.expectedSourceName}, 'sourceId', ${sources.sourceId}, 'sourceName', ${sources.sourceName},
      'assigned', ${sources.assigned}, 'attributes', ${sources.attributes}
    ) order by ${sources.id}), '[]'::json)
    from ${sources} left join ${sourceTypes} on ${sourceTypes.id} = ${sources.sourceTypeId}
    where ${sources.subjectId} = ${subjects.id} and not ${sources.deleted})`),
};

/** One keyset segment: rows after the cursor (`extra`), in `sort` order, `limit` of them. */
async function pageSegment(db: Executor, c: SubjectCriteria, sort: readonly SubjectOrder[], extra: SQL[], limit: number, offset = 0): Promise<ListedSubjectRow[]> {
  if (limit <= 0) return [];
  const query = db.select(listColumns).from(subjects)
    .innerJoin(users, eq(users.id, subjects.userId))
    .leftJoin(groups, eq(groups.id, subjects.groupId))
    .where(and(...filterConditions(c), ...extra)).orderBy(...orderBy(sort)).limit(limit);
  const rows = offset > 0 ? await query.offset(offset) : await query;
  // A driver that hands json over as text (none of ours today) still gives arrays.
  for (const row of rows) {
    if (typeof row.roles === 'string') row.roles = JSON.parse(row.roles);
    if (typeof row.sources === 'string') row.sources = JSON.parse(row.sources);
  }
  return rows;
}

/**
 * One page of a list. Without a cursor the page is `criteria.page` (OFFSET, for callers that
 * page by number); with one it is the rows after the cursor, found through the sort keys'
 * indexes whatever the depth. The segments of an `externalId` sort split on NULL so each is one
 * index range: the non-null external ids (bounded by the cursor's value) and the null ones
 * (ordered by the unique key); PostgreSQL puts NULLs last ascending and first descending.
 */
export async function listSubjects(db: Executor, c: SubjectCriteria): Promise<ListedSubjectRow[]> {
  const { sort, last, size, page } = c;
  if (!last) return pageSegment(db, c, sort, [], size, page * size);
  const [first, second] = sort as [SubjectOrder, SubjectOrder | undefined];
  if (first.key !== 'externalId') return pageSegment(db, c, sort, [after(first, last)], size);

  const tie = second!;
  const ext = subjects.externalId;
  const nonNull = (): SQL[] => (last.externalId === null
    ? [isNotNull(ext)]
    : [isNotNull(ext), first.direction === 'asc' ? gte(ext, last.externalId) : lte(ext, last.externalId),
      or(after(first, last), and(eq(ext, last.externalId), after(tie, last)))!]);
  const nulls = (): SQL[] => (last.externalId === null ? [isNull(ext), after(tie, last)] : [isNull(ext)]);
  const tieOnly = [tie];
  if (first.direction === 'asc') {
    if (last.externalId === null) return pageSegment(db, c, tieOnly, nulls(), size);
    const rows = await pageSegment(db, c, sort, nonNull(), size);
    return rows.concat(await pageSegment(db, c, tieOnly, nulls(), size - rows.length));
  }
  if (last.externalId !== null) return pageSegment(db, c, sort, nonNull(), size);
  const rows = await pageSegment(db, c, tieOnly, nulls(), size);
  return rows.concat(await pageSegment(db, c, sort, nonNull(), size - rows.length));
}

/**
 * The number of subjects a list has over all its pages (`X-Total-Count`). When it filters on its
 * roles alone, this counts role holders from the `role_users` index: every holder of a
 * participant role is a subject. With one role (one authority on one project) no user is
 * counted twice; with more, users are counted once each.
 */
export async function countSubjects(db: Executor, c: SubjectCriteria): Promise<number> {
  if (rolesOnly(c)) {
    const single = c.projectName !== undefined && c.authorities.length === 1;
    const [row] = await db.select({ n: single ? count() : sql<number>`count(distinct ${roleUsers.userId})::int` }).from(roleUsers)
      .where(sql`${roleUsers.roleId} = ${listedRoles(c)}`);
    return Number(row!.n);
  }
  const [row] = await db.select({ n: count() }).from(subjects)
    .innerJoin(users, eq(users.id, subjects.userId))
    .where(and(...filterConditions(c)));
  return row!.n;
}

/** The subject listed by the criteria (project, authorities) with exactly this external id. */
export async function findByExternalId(db: Executor, c: SubjectCriteria, externalId: string): Promise<SubjectRow | undefined> {
  const [row] = await selectSubjects(db).where(and(
    eq(subjects.externalId, externalId),
    sql`exists (select 1 from ${roleUsers} where ${roleUsers.userId} = ${subjects.userId} and ${roleUsers.roleId} = ${listedRoles(c)})`,
  )).orderBy(subjects.id).limit(1);
  return row;
}

// ---- sources --------------------------------------------------------------------------------


/** Sources by id, as they are now (for their revision entries). */
export async function sourcesByIds(db: Executor, ids: readonly number[]): Promise<SourceRow[]> {
  if (ids.length === 0) return [];
  return db.select().from(sources).where(inArray(sources.id, [...ids])).orderBy(sources.id);
}

/** Project names by id. */
export async function projectNames(db: Executor, ids: readonly number[]): Promise<Map<number, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db.select({ id: projects.id, name: projects.projectName }).from(projects).where(inArray(projects.id, [...new Set(ids)]));
  return new Map(rows.map((r) => [r.id, r.name]));
}

export async function findSourcesBySourceIds(db: Executor, sourceIds: readonly string[]): Promise<SourceRow[]> {
  if (sourceIds.length === 0) return [];
  return db.select().from(sources).where(inArray(sources.sourceId, [...sourceIds]));
}

export async function assignSources(db: Executor, ids: readonly number[], subjectId: number, by: string, at: Date): Promise<void> {
  if (ids.length === 0) return;
  await db.update(sources).set({ subjectId, assigned: true, deleted: false, lastModifiedBy: by, lastModifiedDate: at })
    .where(inArray(sources.id, [...ids]));
}

/** Unassigns and marks deleted every source of the subject; returns them as they are now. */
export async function releaseSources(db: Executor, subjectId: number, by: string, at: Date): Promise<SourceRow[]> {
  return db.update(sources).set({ subjectId: null, assigned: false, deleted: true, lastModifiedBy: by, lastModifiedDate: at })
    .where(eq(sources.subjectId, subjectId)).returning();
}


export async function findSourceTypeByKey(db: Executor, producer: string, model: string, catalogVersion: string): Promise<SourceTypeRow | undefined> {
  const [row] = await db.select().from(sourceTypes)
    .where(and(eq(sourceTypes.producer, producer), eq(sourceTypes.model, model), eq(sourceTypes.catalogVersion, catalogVersion))).limit(1);
  return row;
}

export async function findSourceTypeById(db: Executor, id: number): Promise<SourceTypeRow | undefined> {
  const [row] = await db.select().from(sourceTypes).where(eq(sourceTypes.id, id)).limit(1);
  return row;
}

/** The source type `sourceTypeId` if the project uses it. */
export async function findProjectSourceType(db: Executor, projectId: number, sourceTypeId: number): Promise<SourceTypeRow | undefined> {
  const [row] = await db.select({ type: sourceTypes }).from(projectSourceTypes)
    .innerJoin(sourceTypes, eq(sourceTypes.id, projectSourceTypes.sourceTypeId))
    .where(and(eq(projectSourceTypes.projectId, projectId), eq(projectSourceTypes.sourceTypeId, sourceTypeId))).limit(1);
  return row?.type;
}

/** The subject's sources of one type (the questionnaire app registers one per type). */
export async function subjectSourcesOfType(db: Executor, subjectId: number, sourceTypeId: number): Promise<SourceRow[]> {
  return db.select().from(sources).where(and(eq(sources.subjectId, subjectId), eq(sources.sourceTypeId, sourceTypeId)));
}

export async function subjectSourceBy(db: Executor, subjectId: number, by: { sourceId: string } | { sourceName: string }): Promise<SourceRow | undefined> {
  const [row] = await db.select().from(sources).where(and(
    eq(sources.subjectId, subjectId),
    'sourceId' in by ? eq(sources.sourceId, by.sourceId) : eq(sources.sourceName, by.sourceName),
  )).limit(1).for('update');
  return row;
}

export async function sourceNameTaken(db: Executor, sourceName: string, exceptId?: number): Promise<boolean> {
  const [row] = await db.select({ id: sources.id }).from(sources)
    .where(and(eq(sources.sourceName, sourceName), exceptId !== undefined ? sql`${sources.id} <> ${exceptId}` : undefined)).limit(1);
  return row !== undefined;
}

export async function insertSource(db: Executor, values: typeof sources.$inferInsert): Promise<SourceRow> {
  const [row] = await db.insert(sources).values(values).returning();
  return row!;
}

export async function updateSource(db: Executor, id: number, set: Partial<typeof sources.$inferInsert>): Promise<SourceRow> {
  const [row] = await db.update(sources).set(set).where(eq(sources.id, id)).returning();
  return row!;
}

// ---- writes ---------------------------------------------------------------------------------

export async function insertSubjectUser(db: Executor, values: typeof users.$inferInsert): Promise<{ id: number }> {
  const [row] = await db.insert(users).values(values).returning({ id: users.id });
  return row!;
}

export async function insertSubject(db: Executor, values: typeof subjects.$inferInsert): Promise<{ id: number }> {
  const [row] = await db.insert(subjects).values(values).returning({ id: subjects.id });
  return row!;
}

export async function updateSubject(db: Executor, id: number, set: Partial<typeof subjects.$inferInsert>): Promise<void> {
  await db.update(subjects).set(set).where(eq(subjects.id, id));
}

export async function setUserActivated(db: Executor, userId: number, activated: boolean, by: string, at: Date): Promise<void> {
  await db.update(users).set({ activated, lastModifiedBy: by, lastModifiedDate: at }).where(eq(users.id, userId));
}

/** Deletes the subject's user; the subject, its role memberships and meta-tokens go with it. */
export async function deleteSubjectUser(db: Executor, userId: number): Promise<void> {
  await db.delete(users).where(eq(users.id, userId));
}

// ---- revisions ------------------------------------------------------------------------------


const SUBJECT_CHANGE = eq(revisionChanges.entityType, 'subject');

export async function countSubjectChanges(db: Executor, subjectId: number): Promise<number> {
  const [row] = await db.select({ n: count() }).from(revisionChanges)
    .where(and(SUBJECT_CHANGE, eq(revisionChanges.entityId, subjectId)));
  return row!.n;
}

/** The subject's changes with their revision's author and time, by revision id. */
export async function subjectChanges(db: Executor, subjectId: number, page: { offset: number; size: number; descending: boolean }) {
  return db.select({ change: revisionChanges, timestamp: revisions.timestamp, author: revisions.author }).from(revisionChanges)
    .innerJoin(revisions, eq(revisions.id, revisionChanges.revisionId))
    .where(and(SUBJECT_CHANGE, eq(revisionChanges.entityId, subjectId)))
    .orderBy(page.descending ? desc(revisionChanges.revisionId) : asc(revisionChanges.revisionId), asc(revisionChanges.id))
    .limit(page.size).offset(page.offset);
}

/** The subject's last change at or before revision `revisionId` (its state at that revision). */
export async function subjectChangeAt(db: Executor, subjectId: number, revisionId: number): Promise<RevisionChangeRow | undefined> {
  const [row] = await db.select().from(revisionChanges)
    .where(and(SUBJECT_CHANGE, eq(revisionChanges.entityId, subjectId), lte(revisionChanges.revisionId, revisionId)))
    .orderBy(desc(revisionChanges.revisionId), desc(revisionChanges.id)).limit(1);
  return row;
}

/** Every recorded state of the subject (oldest first): where its former sources are found. */
export async function subjectEntities(db: Executor, subjectId: number): Promise<Record<string, unknown>[]> {
  const rows = await db.select({ entity: revisionChanges.entity }).from(revisionChanges)
    .where(and(SUBJECT_CHANGE, eq(revisionChanges.entityId, subjectId)))
    .orderBy(asc(revisionChanges.revisionId), asc(revisionChanges.id));
  return rows.map((r) => r.entity);
}
