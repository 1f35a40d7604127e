import { and, asc, count, eq, getTableColumns, gte, inArray, lte, sql, type SQL } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import { executedRows, type Executor } from '../../platform/database.js';
import { bulkInsert, bulkInsertStatement, rowsJson } from '../../platform/bulk-insert.js';
import { scopeCondition, type ReadScope } from '../read-scope-queries.js';
import { messages, messageStateEvents, projects, users, type MessageKind, type MessageRow, type NewMessageRow, type NewStateEvent } from '../schema.js';

type InsertedColumn = Exclude<keyof MessageRow, 'id' | 'createdAt' | 'updatedAt'>;
const INSERT_COLUMNS = Object.keys(getTableColumns(messages)).filter((k) => !['id', 'createdAt', 'updatedAt'].includes(k)) as InsertedColumn[];

const NOT_STORED = new Date(0);

/**
 * A new message with every column set (the table's defaults where the row has none). One object
 * literal of fixed shape: spreading a defaults object over each row cost 20 µs a row.
 */
const complete = (r: NewMessageRow): MessageRow => ({
  // Set once the row is stored (`storedRows`); present from the start, so the object keeps its shape.
  id: 0, createdAt: NOT_STORED, updatedAt: NOT_STORED,
  kind: r.kind, userId: r.userId, taskId: r.taskId ?? null, sourceId: r.sourceId, scheduledTime: r.scheduledTime,
  ttlSeconds: r.ttlSeconds ?? 0, fcmMessageId: r.fcmMessageId, fcmTopic: r.fcmTopic ?? null, fcmCondition: r.fcmCondition ?? null,
  delivered: r.delivered ?? false, appPackage: r.appPackage, sourceType: r.sourceType, priority: r.priority ?? null,
  mutableContent: r.mutableContent ?? false, data: r.data ?? null, title: r.title ?? null, body: r.body ?? null, type: r.type ?? null,
  sound: r.sound ?? null, badge: r.badge ?? null, subtitle: r.subtitle ?? null, icon: r.icon ?? null, color: r.color ?? null,
  bodyLocKey: r.bodyLocKey ?? null, bodyLocArgs: r.bodyLocArgs ?? null, titleLocKey: r.titleLocKey ?? null,
  titleLocArgs: r.titleLocArgs ?? null, androidChannelId: r.androidChannelId ?? null, tag: r.tag ?? null,
  clickAction: r.clickAction ?? null, emailEnabled: r.emailEnabled ?? false, emailTitle: r.emailTitle ?? null,
  emailBody: r.emailBody ?? null, state: r.state ?? 'ADDED', leaseUntil: r.leaseUntil ?? null, attempts: r.attempts ?? 0,
  emailState: r.emailState ?? null, emailAttempts: r.emailAttempts ?? 0, emailLeaseUntil: r.emailLeaseUntil ?? null, dedupeKey: r.dedupeKey,
});

/** The rows to send and, keyed by user, kind and dedupe key, the first of equal rows (the one stored). */
function prepareMessages(rows: NewMessageRow[]) {
  const firstByKey = new Map<string, MessageRow>();
  const full = rows.map((row) => {
    const stored = complete(row);
    const key = `${stored.userId}:${stored.kind}:${stored.dedupeKey}`;
    if (!firstByKey.has(key)) firstByKey.set(key, stored); // the first of equal rows is the one stored
    return stored;
  });
  return { full, firstByKey };
}

type InsertedKeys = { id: unknown; user_id: unknown; kind: unknown; dedupe_key: unknown; created_at: unknown; updated_at: unknown };

/**
 * The stored rows, completed from what was sent. One statement stamps every row with the same
 * `now()`, so its text is parsed once for the whole batch.
 */
function storedRows(inserted: Record<string, unknown>[], firstByKey: Map<string, MessageRow>): MessageRow[] {
  const dates = new Map<unknown, Date>();
  const date = (value: unknown) => {
    let d = dates.get(value);
    if (!d) dates.set(value, d = value instanceof Date ? value : new Date(value as string));
    return d;
  };
  return (inserted as InsertedKeys[]).map((r) => {
    const row = firstByKey.get(`${r.user_id as number}:${r.kind as string}:${r.dedupe_key as string}`)!;
    row.id = Number(r.id);
    row.createdAt = date(r.created_at);
    row.updatedAt = date(r.updated_at);
    return row;
  });
}

const RETURNED = ['id', 'user_id', 'kind', 'dedupe_key', 'state', 'created_at', 'updated_at'] as const;
const insertMessageRows = bulkInsertStatement(messages, INSERT_COLUMNS, { onConflictDoNothing: true, returning: RETURNED });

/**
 * Inserts the messages that are not duplicates of existing ones (nor of an earlier row of the
 * same call); returns only the new rows. One statement whatever the number of rows.
 */
export async function insertMessages(db: Executor, rows: NewMessageRow[]): Promise<MessageRow[]> {
  if (rows.length === 0) return [];
  const { full, firstByKey } = prepareMessages(rows);
  return storedRows(executedRows(await db.execute(insertMessageRows(rowsJson(full, INSERT_COLUMNS)))), firstByKey);
}

/**
 * `insertMessages` and the new rows' ADDED (and, for SCHEDULED rows, SCHEDULED) state events in
 * one statement, so they commit together without a transaction around them, and the events
 * travel neither way (`addedEvents` says the same of the returned rows for listeners). Both
 * events take the row's `created_at`; the ORDER BY numbers each row's ADDED before its SCHEDULED,
 * as the state-event lists (by time, then id) show them.
 */
export async function insertMessagesWithAddedEvents(db: Executor, rows: NewMessageRow[]): Promise<MessageRow[]> {
  if (rows.length === 0) return [];
  const { full, firstByKey } = prepareMessages(rows);
  const inserted = executedRows(await db.execute(sql`WITH m AS (${insertMessageRows(rowsJson(full, INSERT_COLUMNS))}),
    e AS (INSERT INTO ${messageStateEvents} (${sql.identifier(messageStateEvents.messageId.name)}, ${sql.identifier(messageStateEvents.state.name)}, ${sql.identifier(messageStateEvents.time.name)})
      SELECT m.id, s.state, m.created_at FROM m JOIN (VALUES (1, 'ADDED'), (2, 'SCHEDULED')) AS s (n, state) ON s.n = 1 OR m.state = 'SCHEDULED'
      ORDER BY m.id, s.n)
    SELECT id, user_id, kind, dedupe_key, created_at, updated_at FROM m`));
  return storedRows(inserted, firstByKey);
}

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

/** A message with the projectId and subjectId of its user. */
export const findMessageWithOwner = async (db: Executor, kind: MessageKind, id: number) =>
  (await db.select({ message: messages, projectId: projects.projectId, subjectId: users.subjectId }).from(messages)
    .innerJoin(users, eq(messages.userId, users.id)).innerJoin(projects, eq(users.projectId, projects.id))
    .where(and(eq(messages.id, id), eq(messages.kind, kind))).limit(1))[0];

/** The columns a message's DTO shows, notification and data message alike: what the lists read. */
export type ListedMessage = Pick<MessageRow,
  'id' | 'scheduledTime' | 'delivered' | 'ttlSeconds' | 'sourceId' | 'fcmMessageId' | 'fcmTopic' | 'fcmCondition' | 'appPackage'
  | 'sourceType' | 'priority' | 'mutableContent' | 'createdAt' | 'updatedAt' | 'data' | 'title' | 'body' | 'type' | 'sound' | 'badge'
  | 'subtitle' | 'icon' | 'color' | 'bodyLocKey' | 'bodyLocArgs' | 'titleLocKey' | 'titleLocArgs' | 'androidChannelId' | 'tag'
  | 'clickAction' | 'emailEnabled' | 'emailTitle' | 'emailBody'>;

/**
 * The listed columns in the order of the JSON array each row is read as (`listedMessage` reads
 * them by position). Instants go as epoch milliseconds (floor: what a JS Date keeps of
 * PostgreSQL's microseconds).
 */
const LISTED_KEYS: readonly (keyof ListedMessage)[] = [
  'id', 'scheduledTime', 'delivered', 'ttlSeconds', 'sourceId', 'fcmMessageId', 'fcmTopic', 'fcmCondition', 'appPackage', 'sourceType',
  'priority', 'mutableContent', 'createdAt', 'updatedAt', 'data', 'title', 'body', 'type', 'sound', 'badge', 'subtitle', 'icon', 'color',
  'bodyLocKey', 'bodyLocArgs', 'titleLocKey', 'titleLocArgs', 'androidChannelId', 'tag', 'clickAction', 'emailEnabled', 'emailTitle', 'emailBody',
];

/**
 * An instant's epoch milliseconds (floor: what a JS Date keeps of PostgreSQL's microseconds), as
 * float8. `date_part` (float8) is 2.5 × cheaper than `extract` (numeric since PostgreSQL 14), and
 * rounding its microseconds gives them exactly while they fit a double's 53 bits (years
 * 1685–2255; beyond, a millisecond may be off): checked equal to the numeric form on 6 million
 * instants of both signs. A 1,000-message list writes 3,000 of them.
 */
const epochMillis = (column: string) => `floor(round(date_part('epoch', ${column}) * 1e6) / 1000)`;

const LISTED_ROW = sql.raw(`json_build_array(${LISTED_KEYS.map((key) => {
  const column = (getTableColumns(messages) as Record<string, PgColumn>)[key]!;
  const name = `"messages"."${column.name}"`;
  return column.getSQLType().startsWith('timestamp') ? epochMillis(name) : name;
}).join(', ')})::text`);

/** A listed row from its JSON array (LISTED_KEYS' order). */
function listedMessage(text: string): ListedMessage {
  const v = JSON.parse(text) as unknown[];
  return {
    id: v[0] as number, scheduledTime: new Date(v[1] as number), delivered: v[2] as boolean, ttlSeconds: v[3] as number,
    sourceId: v[4] as string, fcmMessageId: v[5] as string, fcmTopic: v[6] as string | null, fcmCondition: v[7] as string | null,
    appPackage: v[8] as string, sourceType: v[9] as string, priority: v[10] as string | null, mutableContent: v[11] as boolean,
    createdAt: new Date(v[12] as number), updatedAt: new Date(v[13] as number), data: v[14] as Record<string, string> | null,
    title: v[15] as string | null, body: v[16] as string | null, type: v[17] as string | null, sound: v[18] as string | null,
    badge: v[19] as string | null, subtitle: v[20] as string | null, icon: v[21] as string | null, color: v[22] as string | null,
    bodyLocKey: v[23] as string | null, bodyLocArgs: v[24] as string | null, titleLocKey: v[25] as string | null,
    titleLocArgs: v[26] as string | null, androidChannelId: v[27] as string | null, tag: v[28] as string | null,
    clickAction: v[29] as string | null, emailEnabled: v[30] as boolean, emailTitle: v[31] as string | null, emailBody: v[32] as string | null,
  };
}

/**
 * The DTO columns of the messages that `where` selects (joined with their user and project when
 * `owners`), oldest id first. Each row comes as one JSON array (text), read with JSON.parse:
 * Drizzle's row mapping (a reduce with a type check per column and value) cost more than the
 * query and the JSON answer together for a user with 1,000 notifications, and postgres.js's own
 * decoding of 33 columns a row (a string, a parser and a property each) took 18 ms of CPU where
 * JSON.parse takes 3–4 (loaded host); PostgreSQL spends a few ms more building the arrays. Both
 * drivers hand over the same text, so PGlite and PostgreSQL read alike.
 */
async function listed(db: Executor, where: SQL | undefined, owners: boolean, page: { byScheduledTime: true; limit: number } | undefined = undefined): Promise<ListedMessage[]> {
  const from = owners
    ? sql`${messages} inner join ${users} on ${eq(messages.userId, users.id)} inner join ${projects} on ${eq(users.projectId, projects.id)}`
    : sql`${messages}`;
  const order = page ? sql`order by "messages"."scheduled_time", "messages"."id" limit ${page.limit}` : sql`order by "messages"."id"`;
  const rows = executedRows(await db.execute(sql`select ${LISTED_ROW} as "row" from ${from} where ${where ?? sql`true`} ${order}`));
  const out = new Array<ListedMessage>(rows.length);
  for (let i = 0; i < rows.length; i++) out[i] = listedMessage(rows[i]!.row as string);
  return out;
}

/** The messages of a kind inside `scope`. */
export const listMessages = (db: Executor, kind: MessageKind, scope: ReadScope) =>
  scope.all ? listed(db, eq(messages.kind, kind), false)
    : listed(db, and(eq(messages.kind, kind), scopeCondition(scope, projects.projectId, users.subjectId)), true);

/** What `/messaging/{notifications,data}/filtered` select by; each set field must match (bounds inclusive). */
export interface MessageFilter {
  type?: string | undefined;
  delivered?: boolean | undefined;
  ttlSeconds?: number | undefined;
  /** Bounds of the scheduled time. */
  startTime?: Date | null | undefined;
  endTime?: Date | null | undefined;
  limit: number;
}

/** The messages of a kind inside `scope` that match `filter`, by scheduled time (then id), at most `filter.limit`. */
export const listFilteredMessages = (db: Executor, kind: MessageKind, scope: ReadScope, filter: MessageFilter) => {
  const where = and(
    eq(messages.kind, kind),
    filter.type !== undefined ? eq(messages.type, filter.type) : undefined,
    filter.delivered !== undefined ? eq(messages.delivered, filter.delivered) : undefined,
    filter.ttlSeconds !== undefined ? eq(messages.ttlSeconds, filter.ttlSeconds) : undefined,
    filter.startTime ? gte(messages.scheduledTime, filter.startTime) : undefined,
    filter.endTime ? lte(messages.scheduledTime, filter.endTime) : undefined,
    scope.all ? undefined : scopeCondition(scope, projects.projectId, users.subjectId),
  );
  return listed(db, where, !scope.all, { byScheduledTime: true, limit: filter.limit });
};

/** A user's messages of a kind, oldest first: the columns their DTOs show. */
export const listUserMessageDtoColumns = (db: Executor, kind: MessageKind, userId: number) =>
  listed(db, and(eq(messages.kind, kind), eq(messages.userId, userId)), false);

/**
 * A DTO's fields in its order: the JSON key, the column, and `emptyIfNull` where the DTO shows
 * `''` for a missing value (as the codecs' `toDto` does).
 */
export type DtoJsonFields = readonly (readonly [key: string, column: keyof ListedMessage, emptyIfNull?: 'emptyIfNull'])[];

/**
 * The SQL text expression that writes a message row as its DTO's JSON object, key by key: what
 * `JSON.stringify(codec.toDto(row))` gives, byte for byte (test/appserver/notifications/list-body.test.ts).
 * Instants are epoch seconds of the millisecond floor (what a JS Date keeps), written by float8out,
 * which prints the shortest exact form as JavaScript does.
 */
export function dtoJsonSql(fields: DtoJsonFields): SQL {
  const columns = getTableColumns(messages) as Record<string, PgColumn>;
  const parts = fields.map(([key, property, emptyIfNull], i) => {
    const column = columns[property]!;
    const name = `"messages"."${column.name}"`;
    const type = column.getSQLType();
    let value: string;
    if (type.startsWith('timestamp')) value = `(${epochMillis(name)} / 1000)::text`;
    // A data map written compactly, key by key in jsonb's order: jsonb's own text has spaces.
    else if (type === 'jsonb') value = `coalesce((select '{' || string_agg(to_json(e.key)::text || ':' || e.value::text, ',') || '}' from jsonb_each(${name}) e), case when ${name} is null then 'null' else '{}' end)`;
    else if (type === 'text') value = emptyIfNull ? `to_json(coalesce(${name}, ''))::text` : `coalesce(to_json(${name})::text, 'null')`;
    else value = `coalesce(${name}::text, 'null')`; // integers and booleans
    return `'${i === 0 ? '{' : ','}${JSON.stringify(key)}:' || ${value}`;
  });
  return sql.raw(`${parts.join(' || ')} || '}'`);
}

/**
 * A user's messages of a kind, oldest first, as the text of a JSON array of their DTOs, built by
 * PostgreSQL (`dtoJsonSql`). The app reads a user's whole list; decoding the rows and serialising
 * the DTOs in the service cost about 20 µs a message, three quarters of the list's CPU.
 */
export async function listUserMessagesJson(db: Executor, kind: MessageKind, userId: number, dto: SQL): Promise<string> {
  const rows = executedRows(await db.execute(sql`select coalesce(string_agg(${dto}, ',' order by "messages"."id"), '') as "json"
    from ${messages} where ${and(eq(messages.kind, kind), eq(messages.userId, userId))}`));
  return `[${rows[0]!.json as string}]`;
}

/** A user's messages of a kind, whole rows, oldest first. */
export const listUserMessages = (db: Executor, kind: MessageKind, userId: number) =>
  db.select().from(messages).where(and(eq(messages.kind, kind), eq(messages.userId, userId))).orderBy(asc(messages.id));

export const listProjectMessages = (db: Executor, kind: MessageKind, projectRowId: number, scope: ReadScope) =>
  listed(db, and(eq(messages.kind, kind), eq(users.projectId, projectRowId), scopeCondition(scope, projects.projectId, users.subjectId)), true);

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
  bulkInsert(db, messageStateEvents, ['messageId', 'state', 'time', 'associatedInfo', 'external'],
    events.map((e) => ({ messageId: e.messageId, state: e.state, time: e.time, associatedInfo: e.associatedInfo ?? null, external: e.external ?? false })),
    { returning: ['id'] });

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

/** The state events of several messages, oldest first (the admin UI's notification history). */
export const listStateEventsOfMessages = (db: Executor, messageIds: number[]) =>
  messageIds.length === 0 ? Promise.resolve([])
    : db.select().from(messageStateEvents).where(inArray(messageStateEvents.messageId, messageIds)).orderBy(asc(messageStateEvents.time), asc(messageStateEvents.id));
