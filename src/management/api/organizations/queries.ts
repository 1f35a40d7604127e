/** SQL of `/api/organizations`. */
import { asc, count, eq, inArray, or } from 'drizzle-orm';
import type { Executor } from '../../../platform/database.js';
import { organizations, projects, type OrganizationRow, type NewOrganization } from '../../schema.js';
import type { Visibility } from '../projects/queries.js';


export async function findOrganizationById(db: Executor, id: number): Promise<OrganizationRow | undefined> {
  const [row] = await db.select().from(organizations).where(eq(organizations.id, id)).limit(1);
  return row;
}

/** Visible organizations by id: all, the named ones, and those of the named projects. */
export async function listOrganizations(db: Executor, visibility: Visibility): Promise<OrganizationRow[]> {
  const where = visibility.all ? undefined : or(
    inArray(organizations.name, [...visibility.organizations]),
    visibility.projects.length === 0 ? undefined : inArray(organizations.id,
      db.select({ id: projects.organizationId }).from(projects).where(inArray(projects.projectName, [...visibility.projects]))),
  );
  return db.select().from(organizations).where(where).orderBy(asc(organizations.id));
}

export async function insertOrganization(db: Executor, values: NewOrganization): Promise<OrganizationRow> {
  const [row] = await db.insert(organizations).values(values).returning();
  return row!;
}

export async function updateOrganization(db: Executor, id: number, set: Partial<NewOrganization>): Promise<OrganizationRow> {
  const [row] = await db.update(organizations).set(set).where(eq(organizations.id, id)).returning();
  return row!;
}

/**
 * Locks the organization's row (FOR UPDATE) and counts its projects: a project inserted into it
 * concurrently waits for the lock (its foreign key takes a key-share lock), so the count holds
 * until the transaction ends.
 */
export async function lockAndCountProjects(db: Executor, id: number): Promise<number> {
  await db.select({ id: organizations.id }).from(organizations).where(eq(organizations.id, id)).for('update');
  const [row] = await db.select({ n: count() }).from(projects).where(eq(projects.organizationId, id));
  return row?.n ?? 0;
}

/** Deletes the organization; its roles (and their memberships) go with it (ON DELETE CASCADE). */
export async function deleteOrganization(db: Executor, id: number): Promise<void> {
  await db.delete(organizations).where(eq(organizations.id, id));
}
