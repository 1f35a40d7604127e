/** SQL for OAuth clients. Plain functions over an executor; no rules here. */
import { eq } from 'drizzle-orm';
import type { Executor } from '../../../platform/database.js';
import { oauthClients, type OAuthClientRow, type OAuthClientInsert } from '../../schema.js';


export async function findClient(db: Executor, clientId: string): Promise<OAuthClientRow | undefined> {
  const [row] = await db.select().from(oauthClients).where(eq(oauthClients.clientId, clientId)).limit(1);
  return row;
}

export async function listClients(db: Executor): Promise<OAuthClientRow[]> {
  return db.select().from(oauthClients).orderBy(oauthClients.clientId);
}

/** Inserts the client or replaces every column of the one with the same id. */
export async function upsertClient(db: Executor, client: OAuthClientInsert): Promise<void> {
  const { clientId: _id, ...rest } = client;
  await db.insert(oauthClients).values(client).onConflictDoUpdate({
    target: oauthClients.clientId,
    set: { ...rest, updatedAt: new Date() },
  });
}

export async function deleteClient(db: Executor, clientId: string): Promise<boolean> {
  const rows = await db.delete(oauthClients).where(eq(oauthClients.clientId, clientId)).returning({ clientId: oauthClients.clientId });
  return rows.length > 0;
}

/** Inserts a new client; false when the id is taken. */
export async function insertClient(db: Executor, client: OAuthClientInsert): Promise<boolean> {
  const rows = await db.insert(oauthClients).values(client).onConflictDoNothing().returning({ clientId: oauthClients.clientId });
  return rows.length > 0;
}

/** Replaces the given columns of an existing client; undefined when there is none. */
export async function updateClient(db: Executor, clientId: string, set: Partial<OAuthClientInsert>): Promise<OAuthClientRow | undefined> {
  const [row] = await db.update(oauthClients).set({ ...set, updatedAt: new Date() }).where(eq(oauthClients.clientId, clientId)).returning();
  return row;
}
