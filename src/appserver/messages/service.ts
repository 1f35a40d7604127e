/**
 * Use cases shared by notifications and data messages: add (single and batch, deduplicated),
 * update, delete, put on the schedule, and their state events. A `MessageCodec` supplies what
 * differs between the two kinds (DTO mapping, duplicate rule and answer).
 *
 * Every state change and its state-event rows commit in one transaction; listeners are told
 * after the commit (ARCHITECTURE rule 5).
 */
import { hash } from 'node:crypto';
import type { Database, Executor } from '../../platform/database.js';
import { Forbidden, InvalidDetails, NotFound, requireBodyMatchesPath } from '../errors.js';
import { inScope, type ReadScope } from '../read-scope-queries.js';
import { readExternalStateEvent, requireBelowStateEventCap } from '../state-events.js';
import type { AppserverEventBus, MessageStateChange } from '../events.js';
import { epochSeconds, parseOptionalInstant } from '../instant.js';
import type { DeliveryState, MessageKind, MessageRow, MessageState, MessageStateEventRow, NewMessageRow } from '../schema.js';
import { requireProject, requireSubject } from '../users/service.js';
import { setUserMetrics } from '../users/queries.js';
import * as q from './queries.js';
import type { NotificationStateEventDtoT, StateEventBodyT } from './schemas.js';

/** What differs between notifications and data messages. */
export interface MessageCodec<Body, Dto> {
  kind: MessageKind;
  /** "Notification" / "Data message", for error messages. */
  label: string;
  /** The row to store for a request body (without user, state and dedupe key). */
  toRow(body: Body): Omit<NewMessageRow, 'userId' | 'kind' | 'dedupeKey'>;
  /** The fields of the reference's duplicate rule. */
  dedupeFields(row: Omit<NewMessageRow, 'userId' | 'kind' | 'dedupeKey'>): unknown[];
  toDto(row: q.ListedMessage): Dto;
  /** The same DTO, field by field, for the lists PostgreSQL writes as JSON (`q.dtoJsonSql`). */
  dtoJson: q.DtoJsonFields;
  /** The error for a single add that repeats an existing message. */
  duplicate(existing: Dto): Error;
}

/** Client-reported states accepted by the state-event endpoint (reference: external states). */
export const EXTERNAL_STATES: readonly MessageState[] = ['DELIVERED', 'OPENED', 'DISMISSED', 'ERRORED', 'UNKNOWN'];
/** How many client-reported events one message may collect. */
export const MAX_EXTERNAL_EVENTS = 20;

export const toStateEventDto = (e: MessageStateEventRow): NotificationStateEventDtoT => ({
  id: e.id,
  notificationId: e.messageId,
  state: e.state,
  time: epochSeconds(e.time),
  associatedInfo: e.associatedInfo,
});

// One-shot `hash` (the same digest as createHash().update().digest()): no Hash object per row.
const dedupeKey = (fields: unknown[]) => hash('sha256', JSON.stringify(fields), 'base64url');

/** The row to store for a message body: its user, state (SCHEDULED or ADDED) and duplicate key. */
export function newMessageRow<Body, Dto>(codec: MessageCodec<Body, Dto>, body: Body, userId: number, schedule: boolean): NewMessageRow {
  const row = codec.toRow(body) as NewMessageRow;
  // Set one by one, not assigned from a literal nor spread: this runs for every row of a
  // 200-message batch, and `Object.assign` takes V8's slow path for properties it adds.
  row.userId = userId;
  row.kind = codec.kind;
  row.state = schedule ? 'SCHEDULED' : 'ADDED';
  row.dedupeKey = dedupeKey(codec.dedupeFields(row));
  return row;
}

/**
 * ADDED (and SCHEDULED) events for newly stored rows. Both take the row's createdAt: the
 * service clock was read before the database's, so SCHEDULED used to sort before ADDED.
 */
export function addedEvents(rows: MessageRow[]) {
  return rows.flatMap((r) => [
    { messageId: r.id, state: 'ADDED' as const, time: r.createdAt },
    ...(r.state === 'SCHEDULED' ? [{ messageId: r.id, state: 'SCHEDULED' as const, time: r.createdAt }] : []),
  ]);
}

interface Deps { db: Database; events: AppserverEventBus; clock?: () => Date }

export function createMessageService<Body extends { id?: number | null }, Dto>(codec: MessageCodec<Body, Dto>, { db, events, clock = () => new Date() }: Deps) {
  const { kind, label } = codec;
  const dtoSql = q.dtoJsonSql(codec.dtoJson);

  /** Tells listeners about committed state events. */
  function publish(owner: { projectId: string; subjectId: string }, changes: { messageId: number; state: MessageState; time: Date; info?: Record<string, string> | null }[]) {
    events.publish('message.state', ...changes.map((c): MessageStateChange => ({
      kind, messageId: c.messageId, projectId: owner.projectId, subjectId: owner.subjectId,
      state: c.state, time: c.time, associatedInfo: c.info ?? null,
    })));
  }

  const newRow = (body: Body, userId: number, schedule: boolean) => newMessageRow(codec, body, userId, schedule);

  async function requireUserMessage(tx: Executor, userId: number, id: number, lock = false) {
    const message = await q.findUserMessage(tx, kind, userId, id, lock);
    if (!message) throw new NotFound(`The ${label} with Id ${id} does not exist for this user`);
    return message;
  }

  /** Reference leak fixed: the id routes showed any user's message to any token with the route's permission. */
  async function findInScope(id: number, scope: ReadScope) {
    const found = await q.findMessageWithOwner(db, kind, id);
    // Reference bug fixed: an unknown id answered 200 with an empty DTO (or an empty event list).
    if (!found) throw new NotFound(`${label} not found with id ${id}`);
    if (!inScope(scope, found.projectId, found.subjectId)) throw new Forbidden();
    return found.message;
  }

  return {
    codec,

    /** The messages inside `scope`. */
    list: async (scope: ReadScope) => (await q.listMessages(db, kind, scope)).map(codec.toDto),

    /** A message by id: 404 when unknown, 403 when its user is outside `scope`. */
    async get(id: number, scope: ReadScope) {
      return codec.toDto(await findInScope(id, scope));
    },

    /** A user's messages, oldest first, as the JSON text of their DTOs' array; 404 for an unknown user. */
    async listOfUserJson(projectId: string, subjectId: string): Promise<string> {
      const { user } = await requireSubject(db, projectId, subjectId);
      return q.listUserMessagesJson(db, kind, user.id, dtoSql);
    },

    /**
     * The messages inside `scope` that match the filter, by scheduled time, at most `limit`
     * (the reference's stub `getFiltered…`). 400 for a bound that is no instant.
     */
    async listFiltered(scope: ReadScope, filter: Omit<q.MessageFilter, 'startTime' | 'endTime'> & { startTime?: string | undefined; endTime?: string | undefined }) {
      const bounds = { startTime: parseOptionalInstant(filter.startTime, 'startTime'), endTime: parseOptionalInstant(filter.endTime, 'endTime') };
      return (await q.listFilteredMessages(db, kind, scope, { ...filter, ...bounds })).map(codec.toDto);
    },

    /** The project's messages inside `scope`; 404 for an unknown project. */
    async listOfProject(projectId: string, scope: ReadScope) {
      const project = await requireProject(db, projectId);
      return (await q.listProjectMessages(db, kind, project.id, scope)).map(codec.toDto);
    },

    /** Adds one message; throws the codec's duplicate error when it repeats an existing one. */
    async add(projectId: string, subjectId: string, body: Body, opts: { schedule: boolean }) {
      // The user is read and the row built before the transaction opens (see addBatch).
      const { project, user } = await requireSubject(db, projectId, subjectId);
      const row = newRow(body, user.id, opts.schedule);
      const { stored, owner, existing } = await db.transaction(async (tx) => {
        const [inserted] = await q.insertMessages(tx, [row]);
        if (!inserted) {
          return { stored: undefined, owner: undefined, existing: await q.findMessageByDedupeKey(tx, user.id, kind, row.dedupeKey) };
        }
        const changes = addedEvents([inserted]);
        await q.insertStateEvents(tx, changes);
        return { stored: { row: inserted, changes }, owner: { projectId: project.projectId, subjectId }, existing: undefined };
      });
      if (!stored) throw codec.duplicate(codec.toDto(existing!));
      publish(owner!, stored.changes);
      return codec.toDto(stored.row);
    },

    /**
     * Adds many messages; repeats of existing ones (or within the batch) are skipped. Returns the
     * new ones. The rows and their state events are one statement, so they commit together
     * without a transaction around the lookup (BEGIN and COMMIT were two of five round trips).
     */
    async addBatch(projectId: string, subjectId: string, bodies: Body[], opts: { schedule: boolean }) {
      const { project, user } = await requireSubject(db, projectId, subjectId);
      const rows = await q.insertMessagesWithAddedEvents(db, bodies.map((b) => newRow(b, user.id, opts.schedule)));
      publish({ projectId: project.projectId, subjectId }, addedEvents(rows));
      return rows.map(codec.toDto);
    },

    /**
     * Replaces a message's content (417 without `id`, 404 when not the user's). A message that
     * was sent, failed or cancelled goes back on the schedule when its new time is in the future.
     */
    async update(projectId: string, subjectId: string, body: Body) {
      if (body.id === undefined || body.id === null) throw new InvalidDetails(`ID must be supplied for updating the ${label.toLowerCase()}`);
      const id = body.id;
      const now = clock();
      const { row, changes, owner } = await db.transaction(async (tx) => {
        const { project, user } = await requireSubject(tx, projectId, subjectId);
        const current = await q.findUserMessage(tx, kind, user.id, id, true);
        if (!current) throw new NotFound(`${label} does not exist. Please create first`);
        const next = newRow(body, user.id, false);
        const reschedule = current.state !== 'ADDED' && current.state !== 'SCHEDULED' && next.scheduledTime > now;
        const state: DeliveryState = reschedule ? 'SCHEDULED' : current.state;
        // A rescheduled notification starts over, its e-mail included.
        const restart = reschedule ? { attempts: 0, emailState: null, emailAttempts: 0, emailLeaseUntil: null } : { attempts: current.attempts };
        const row = await q.updateMessage(tx, id, { ...next, state, leaseUntil: null, ...restart });
        const changes = [
          { messageId: id, state: 'UPDATED' as const, time: now },
          ...(reschedule ? [{ messageId: id, state: 'SCHEDULED' as const, time: now }] : []),
        ];
        await q.insertStateEvents(tx, changes);
        return { row: row!, changes, owner: { projectId: project.projectId, subjectId } };
      });
      publish(owner, changes);
      return codec.toDto(row);
    },

    /** Deletes messages of the user (one by id — 404 when unknown —, all, or a task's); listeners hear CANCELLED. */
    async remove(projectId: string, subjectId: string, filter: { id?: number; taskId?: number } = {}) {
      const { user } = await requireSubject(db, projectId, subjectId);
      const ids = await q.deleteUserMessages(db, kind, user.id, { ids: filter.id !== undefined ? [filter.id] : undefined, taskId: filter.taskId });
      if (filter.id !== undefined && ids.length === 0) throw new NotFound(`${label} with the provided ID does not exist.`);
      const now = clock();
      publish({ projectId, subjectId }, ids.map((messageId) => ({ messageId, state: 'CANCELLED' as const, time: now })));
    },

    /** Puts the user's unscheduled messages (or one of them) on the schedule. */
    async schedule(projectId: string, subjectId: string, id?: number) {
      const now = clock();
      const { user, changes } = await db.transaction(async (tx) => {
        const { user } = await requireSubject(tx, projectId, subjectId);
        if (id !== undefined) await requireUserMessage(tx, user.id, id);
        const scheduled = await q.scheduleAddedMessages(tx, kind, user.id, id !== undefined ? [id] : undefined);
        const changes = scheduled.map((m) => ({ messageId: m.id, state: 'SCHEDULED' as const, time: now }));
        await q.insertStateEvents(tx, changes);
        return { user, changes };
      });
      publish({ projectId, subjectId }, changes);
      if (id !== undefined) return [codec.toDto((await q.findMessage(db, kind, id))!)];
      return (await q.listUserMessageDtoColumns(db, kind, user.id)).map(codec.toDto);
    },

    /** State events of a message by id alone (an unknown id has none). */
    /** A message's state events: 404 when the message is unknown, 403 when its user is outside `scope`. */
    async listStateEvents(id: number, scope: ReadScope) {
      await findInScope(id, scope);
      return (await q.listStateEventsOfKind(db, kind, id)).map(toStateEventDto);
    },

    async listUserStateEvents(projectId: string, subjectId: string, id: number) {
      const { user } = await requireSubject(db, projectId, subjectId);
      await requireUserMessage(db, user.id, id);
      return (await q.listStateEvents(db, id)).map(toStateEventDto);
    },

    /**
     * Records a client-reported state (DELIVERED, OPENED, DISMISSED, ERRORED, UNKNOWN; else 400),
     * at most MAX_EXTERNAL_EVENTS per message (409). DELIVERED and OPENED update the user's
     * lastDelivered / lastOpened. Returns all events of the message, the new one included.
     */
    async postStateEvent(projectId: string, subjectId: string, id: number, body: StateEventBodyT) {
      // The path names the message; the body's notificationId (the app sends it) may only repeat it.
      requireBodyMatchesPath('notificationId', body.notificationId, id, `the path (${id})`);
      const { state, time, info, associatedInfo } = readExternalStateEvent(body, EXTERNAL_STATES, clock);
      const { list, owner } = await db.transaction(async (tx) => {
        const { project, user } = await requireSubject(tx, projectId, subjectId);
        await requireUserMessage(tx, user.id, id, true); // the row lock serialises concurrent posts for the cap
        requireBelowStateEventCap(await q.countExternalStateEvents(tx, id), MAX_EXTERNAL_EVENTS);
        await q.insertStateEvents(tx, [{ messageId: id, state, time, associatedInfo, external: true }]);
        if (state === 'DELIVERED') await setUserMetrics(tx, user.id, { lastDelivered: time });
        if (state === 'OPENED') await setUserMetrics(tx, user.id, { lastOpened: time });
        return { list: await q.listStateEvents(tx, id), owner: { projectId: project.projectId, subjectId } };
      });
      publish(owner, [{ messageId: id, state, time, info }]);
      return list.map(toStateEventDto);
    },
  };
}

export type MessageService<Body extends { id?: number | null }, Dto> = ReturnType<typeof createMessageService<Body, Dto>>;
