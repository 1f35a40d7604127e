/** Shared steps of the schedule and task tests: a subject with a protocol, and reading their schedule. */
import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import type { Database } from '../../../src/platform/database.js';
import { messages, tasks } from '../../../src/appserver/schema.js';
import type { Protocol } from '../../../src/appserver/schedules/protocol.js';
import { aProject, aSubject, call, expectStatus, type Subject } from '../../fixtures/appserver.js';
import { fixedProtocols, type FixedProtocols } from '../../fixtures/protocol-source.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { until } from '../../helpers/eventually.js';

export interface Task { id: number; name: string; timestamp: number; completionWindow: number; completed: boolean; status: string; timeCompleted: number | null; type: string; createdAt: number }

export const schedulePath = (s: { projectId: string; subjectId: string }) => `/projects/${s.projectId}/users/${s.subjectId}/questionnaire/schedule`;

export const database = (app: FastifyInstance) => app.db.db as Database;

export async function getTasks(app: FastifyInstance, s: Subject, query = ''): Promise<Task[]> {
  return expectStatus(await call(app, 'GET', `${schedulePath(s)}${query}`), 200) as Task[];
}

/** A new project with the protocol and a subject in it; resolves once the background generation stored `expected` tasks. */
export async function aSubjectWithProtocol(app: FastifyInstance, source: FixedProtocols, protocol: Protocol, expected: number, body: Record<string, unknown> = {}) {
  const projectId = await aProject(app);
  source.set(projectId, protocol, { quiet: true });
  const s = await aSubject(app, { projectId, body });
  await until(async () => expect(await getTasks(app, s)).toHaveLength(expected));
  return s;
}

/** The user's stored notifications (with task links and states), oldest first. */
export const storedNotifications = async (app: FastifyInstance, userId: number) =>
  (await database(app).select().from(messages).where(eq(messages.userId, userId))).sort((a, b) => a.scheduledTime.getTime() - b.scheduledTime.getTime() || a.id - b.id);

export const storedTasks = async (app: FastifyInstance, userId: number) =>
  (await database(app).select().from(tasks).where(eq(tasks.userId, userId))).sort((a, b) => a.timestamp.getTime() - b.timestamp.getTime() || a.id - b.id);

/** The test app with a fixed protocol source and no interval runs (tests start runs themselves). */
export async function buildScheduleTestApp(env: Record<string, string> = {}): Promise<TestApp & { source: FixedProtocols }> {
  const source = fixedProtocols();
  const t = await buildTestApp({ QUESTIONNAIRE_SCHEDULE_INTERVAL_SECONDS: '0', ...env }, { protocolSource: source });
  return Object.assign(t, { source });
}
