import { and, asc, count, eq, inArray } from 'drizzle-orm';
import type { Executor } from '../../platform/database.js';
import { messages, messageStateEvents, projects, users, type MessageKind, type MessageRow, type NewMessageRow } from '../schema.js';

export type NewStateEvent = typeof messageStateEvents.$inferInsert;
/** A message with the project and subject it belongs to (for events and listeners). */
export interface MessageWithOwner { message: MessageRow; projectId: string; subjectId: string }

/** Inserts the messages that are not duplicates of existing ones; returns only the new rows. */
export const insertMessages = (db: Executor, rows: NewMessageRow[]) =>
  rows.length === 0 ? Promise.resolve([]) : db.insert(messages).values(rows).onConflictDoNothing().returning();

export const findMessageByDedupeKey = async (db: Executor, userId: number, kind: MessageKind, dedupeKey: string) =>
  (await db.select().from(messages)
    .where(and(eq(messages.userId, userId), eq(messages.kind, kind), eq(messages.dedupeKey, dedupeKey))).limit(1))[0];

export const findMessage = async (db: Executor, kind: MessageKind, id: number) =>
  (await db.select().from(messages).where(and(eq(messages.id, id), eq(messages.kind, kind))).limit(1))[0];

/** The message if it belongs to the user; locked for update when `lock` (inside a transaction). */
export const findUserMessage = async (db: Executor, kind: MessageKind, userId: number, id: number, lock = false) => {
  const query = db.select().from(messages).where(and(eq(messages.id, id), eq(messages.kind, kind), eq(messages.userId, userId))).limit(1);
  return (await (lock ? query.for('update') : query))[0];
};

export const listMessages = (db: Executor, kind: MessageKind) =>
  db.select().from(messages).where(eq(messages.kind, kind)).orderBy(asc(messages.id));

export const listUserMessages = (db: Executor, kind: MessageKind, userId: number) =>
  db.select().from(messages).where(and(eq(messages.kind, kind), eq(messages.userId, userId))).orderBy(asc(messages.id));

export const listProjectMessages = async (db: Executor, kind: MessageKind, projectRowId: number) =>
  (await db.select({ message: messages }).from(messages).innerJoin(users, eq(messages.userId, users.id))
    .where(and(eq(messages.kind, kind), eq(users.projectId, projectRowId))).orderBy(asc(messages.id))).map((r) => r.message);

export const updateMessage = async (db: Executor, id: number, values: Partial<NewMessageRow>) =>
  (await db.update(messages).set({ ...values, updatedAt: new Date() }).where(eq(messages.id, id)).returning())[0];

/** Puts the user's unscheduled (ADDED) messages, or the given ones, on the schedule; returns them. */
export const scheduleAddedMessages = (db: Executor, kind: MessageKind, userId: number, ids?: number[]) =>
  db.update(messages).set({ state: 'SCHEDULED', leaseUntil: null, updatedAt: new Date() })
    .where(and(
      eq(messages.kind, kind), eq(messages.userId, userId), eq(messages.state, 'ADDED'),
      ids ? inArray(messages.id, ids) : undefined,
    ))
    .returning({ id: messages.id });

/** Deletes the user's messages of a kind (all, the given ids, or those of a task); returns the deleted ids. */
export const deleteUserMessages = async (db: Executor, kind: MessageKind, userId: number, filter: { ids?: number[]; taskId?: number } = {}) =>
  (await db.delete(messages).where(and(
    eq(messages.kind, kind), eq(messages.userId, userId),
    filter.ids ? inArray(messages.id, filter.ids) : undefined,
    filter.taskId !== undefined ? eq(messages.taskId, filter.taskId) : undefined,
  )).returning({ id: messages.id })).map((r) => r.id);

export const insertStateEvents = (db: Executor, events: NewStateEvent[]) =>
  events.length === 0 ? Promise.resolve([]) : db.insert(messageStateEvents).values(events).returning();

/** State events of a message, oldest first. */
export const listStateEvents = (db: Executor, messageId: number) =>
  db.select().from(messageStateEvents).where(eq(messageStateEvents.messageId, messageId)).orderBy(asc(messageStateEvents.time), asc(messageStateEvents.id));

/** State events of a message of the given kind (none when the id is another kind's). */
export const listStateEventsOfKind = async (db: Executor, kind: MessageKind, messageId: number) =>
  (await db.select({ event: messageStateEvents }).from(messageStateEvents)
    .innerJoin(messages, eq(messageStateEvents.messageId, messages.id))
    .where(and(eq(messageStateEvents.messageId, messageId), eq(messages.kind, kind)))
    .orderBy(asc(messageStateEvents.time), asc(messageStateEvents.id))).map((r) => r.event);

export const countExternalStateEvents = async (db: Executor, messageId: number) =>
  (await db.select({ n: count() }).from(messageStateEvents)
    .where(and(eq(messageStateEvents.messageId, messageId), eq(messageStateEvents.external, true))))[0]?.n ?? 0;


/** Ids and kinds of all of a user's messages (to tell listeners when the user is deleted). */
export const listMessageIdsOfUser = (db: Executor, userId: number) =>
  db.select({ id: messages.id, kind: messages.kind }).from(messages).where(eq(messages.userId, userId));
