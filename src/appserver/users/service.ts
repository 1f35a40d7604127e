import type { Database, Executor } from '../../platform/database.js';
import { listMessageIdsOfUser } from '../messages/queries.js';
import { BadRequest, Conflict, InvalidDetails, NotFound, requireBodyMatchesPath } from '../errors.js';
import type { AppserverEventBus } from '../events.js';
import { epochSeconds, parseInstant, parseOptionalInstant } from '../instant.js';
import { findProjectByProjectId } from '../projects/queries.js';
import type { ProjectRow, UserRow } from '../schema.js';
import type { ReadScope } from '../read-scope-queries.js';
import * as q from './queries.js';
import type { FcmUserBodyT, FcmUserDtoT } from './schemas.js';

export const toUserDto = ({ user, projectId }: q.UserWithProject): FcmUserDtoT => ({
  id: user.id,
  projectId,
  subjectId: user.subjectId,
  email: user.email,
  lastOpened: epochSeconds(user.lastOpened),
  lastDelivered: epochSeconds(user.lastDelivered),
  createdAt: epochSeconds(user.createdAt),
  updatedAt: epochSeconds(user.updatedAt),
  enrolmentDate: epochSeconds(user.enrolmentDate),
  timezone: user.timezone,
  fcmToken: user.fcmToken,
  language: user.language,
  attributes: user.attributes,
});

/** The project, or 404 with the reference's message. */
export async function requireProject(db: Executor, projectId: string): Promise<ProjectRow> {
  const project = await findProjectByProjectId(db, projectId);
  if (!project) throw new NotFound('Project Id does not exist. Please create a project with the ID first');
  return project;
}

/** The user of a project, or 404 (project or user unknown) with the reference's messages. */
export async function requireSubject(db: Executor, projectId: string, subjectId: string): Promise<{ project: ProjectRow; user: UserRow }> {
  const found = await q.findProjectAndUser(db, projectId, subjectId);
  if (!found) throw new NotFound('Project Id does not exist. Please create a project with the ID first');
  if (!found.user) throw new NotFound('The supplied Subject ID is invalid. No user found. Please Create a User First.');
  return { project: found.project, user: found.user };
}

/** Accepts an IANA zone or an integer offset in seconds (±18 h); returns the stored string. */
export function normalizeTimezone(value: string | number): string {
  const text = String(value).trim();
  if (/^[+-]?\d+$/.test(text)) {
    if (Math.abs(Number(text)) > 18 * 3600) throw new BadRequest(`timezone offset must be within ±64800 seconds, got ${text}`);
    return String(Number(text));
  }
  try {
    new Intl.DateTimeFormat('en', { timeZone: text });
  } catch {
    throw new BadRequest(`timezone must be an IANA time zone or an offset in seconds, got ${JSON.stringify(value)}`);
  }
  return text;
}

/** The reference's replacement for a device token taken over by another subject (forceFcmToken). */
const unregisteredToken = (now: Date) => `unregistered_${now.toISOString()}`;

export function createUserService({ db, events, clock = () => new Date() }: { db: Database; events: AppserverEventBus; clock?: () => Date }) {
  async function withProject(users: Promise<q.UserWithProject | undefined>, notFound: string) {
    const found = await users;
    if (!found) throw new NotFound(notFound);
    return toUserDto(found);
  }

  return {
    /** The users inside `scope`. */
    list: async (scope: ReadScope) => (await q.listUsers(db, scope)).map(toUserDto),

    /** The project's users inside `scope`; 404 for an unknown project. */
    async listOfProject(projectId: string, scope: ReadScope) {
      const project = await findProjectByProjectId(db, projectId);
      if (!project) throw new NotFound(`Project not found with projectId ${projectId}`);
      return (await q.listUsersOfProject(db, project.id, scope)).map(toUserDto);
    },

    async getById(id: number | undefined) {
      if (id === undefined) throw new InvalidDetails('The given id must not be null!');
      return withProject(q.findUserById(db, id), `No User was found with the ID - ${id}`);
    },

    async getBySubjectId(subjectId: string) {
      const found = await q.findUsersBySubjectId(db, subjectId);
      if (found.length === 0) throw new NotFound(`No User was found with the subject ID - ${subjectId}`);
      // Reference bug fixed: two projects with the same subjectId gave a 500.
      if (found.length > 1) throw new Conflict(`The subject ID ${subjectId} exists in more than one project; use /projects/{projectId}/users/${subjectId}`);
      return toUserDto(found[0]!);
    },

    async get(projectId: string, subjectId: string) {
      const { project, user } = await requireSubject(db, projectId, subjectId);
      return toUserDto({ user, projectId: project.projectId });
    },

    /**
     * Creates a user in a project (404 unknown project, 417 existing subject, 409 a token held by
     * another user unless `forceFcmToken`, which gives that user a placeholder token instead).
     */
    async create(projectId: string, body: FcmUserBodyT, opts: { forceFcmToken: boolean; pathSubjectId?: string }) {
      if (opts.pathSubjectId !== undefined) requireBodyMatchesPath('subjectId', body.subjectId, opts.pathSubjectId, `the path (${opts.pathSubjectId})`);
      const subjectId = opts.pathSubjectId ?? body.subjectId;
      if (!subjectId) throw new BadRequest('subjectId must not be empty');
      const now = clock();
      const values = {
        subjectId,
        fcmToken: body.fcmToken ?? null,
        enrolmentDate: parseInstant(body.enrolmentDate, 'enrolmentDate'),
        timezone: normalizeTimezone(body.timezone),
        language: body.language ?? null,
        email: body.email || null,
        attributes: body.attributes ?? {},
        lastOpened: parseOptionalInstant(body.lastOpened, 'lastOpened') ?? now,
        lastDelivered: parseOptionalInstant(body.lastDelivered, 'lastDelivered'),
      };
      return db.transaction(async (tx) => {
        const project = await requireProject(tx, projectId);
        if (opts.forceFcmToken && values.fcmToken) {
          const existing = await q.findUser(tx, project.id, subjectId);
          await q.replaceFcmTokenOfOthers(tx, values.fcmToken, existing?.id ?? null, unregisteredToken(now));
        }
        const user = await q.insertUser(tx, { ...values, projectId: project.id });
        if (!user) {
          throw new InvalidDetails(`The user with specified subject ID ${subjectId} already exists in project ID ${projectId}. Please use Update endpoint if need to update the user`);
        }
        return toUserDto({ user, projectId: project.projectId });
      });
    },

    /** Updates a user's device token, enrolment, time zone, language, e-mail, attributes and metrics. */
    async update(projectId: string, subjectId: string, body: FcmUserBodyT, opts: { forceFcmToken: boolean }) {
      const now = clock();
      const values = {
        ...(body.fcmToken !== undefined ? { fcmToken: body.fcmToken } : {}),
        enrolmentDate: parseInstant(body.enrolmentDate, 'enrolmentDate'),
        timezone: normalizeTimezone(body.timezone),
        ...(body.language !== undefined ? { language: body.language } : {}),
        // Reference bug fixed: the e-mail address could not be changed after creation.
        ...(body.email !== undefined ? { email: body.email || null } : {}),
        ...(body.attributes !== undefined ? { attributes: body.attributes ?? {} } : {}),
        lastOpened: parseOptionalInstant(body.lastOpened, 'lastOpened') ?? now,
        ...(body.lastDelivered !== undefined ? { lastDelivered: parseOptionalInstant(body.lastDelivered, 'lastDelivered') } : {}),
      };
      return db.transaction(async (tx) => {
        const project = await requireProject(tx, projectId);
        const existing = await q.findUser(tx, project.id, subjectId);
        if (!existing) {
          throw new NotFound(`The user with specified subject ID ${subjectId} does not exist in project ID ${projectId}. Please use CreateUser endpoint to create the user.`);
        }
        // Reference bug fixed: the body's ids were ignored, so a body naming another user updated
        // the path's one silently. The path decides; a body may only repeat it.
        requireBodyMatchesPath('id', body.id, existing.id, `the user ${subjectId} (id ${existing.id})`);
        requireBodyMatchesPath('subjectId', body.subjectId, subjectId, `the path (${subjectId})`);
        requireBodyMatchesPath('projectId', body.projectId, projectId, `the path (${projectId})`);
        if (opts.forceFcmToken && values.fcmToken) {
          await q.replaceFcmTokenOfOthers(tx, values.fcmToken, existing.id, unregisteredToken(now));
        }
        const user = await q.updateUser(tx, existing.id, values);
        return toUserDto({ user: user!, projectId: project.projectId });
      });
    },

    /** Deletes a user with its notifications, data messages and their events (404 when unknown); listeners hear CANCELLED. */
    async remove(projectId: string, subjectId: string) {
      const cancelled = await db.transaction(async (tx) => {
        const project = await findProjectByProjectId(tx, projectId);
        if (!project) throw new NotFound('Project Id does not exist. Cannot delete user without a valid project.');
        const user = await q.findUser(tx, project.id, subjectId);
        if (!user) throw new NotFound(`The user with specified subject ID ${subjectId} does not exist in project ID ${projectId}. Please specify a valid user for deleting.`);
        const messages = await listMessageIdsOfUser(tx, user.id);
        await q.deleteUser(tx, user.id);
        return messages;
      });
      const time = clock();
      events.publish('message.state', ...cancelled.map((m) => ({
        kind: m.kind, messageId: m.id, projectId, subjectId, state: 'CANCELLED' as const, time, associatedInfo: null,
      })));
    },
  };
}

export type UserService = ReturnType<typeof createUserService>;
