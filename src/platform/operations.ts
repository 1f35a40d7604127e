/**
 * The operational endpoints' one implementation, served twice: under `/actuator` (HTTP basic,
 * platform/actuator.ts) and under the management domain's `/management` (a system admin's
 * token or session, as ManagementPortal's `management.endpoints.web.base-path`). Both answer
 * alike: Spring Boot Actuator's `health` (with the `liveness` and `readiness` groups), `info`,
 * `prometheus` and `loggers`, plus ManagementPortal's `LogsResource` (`/management/logs`).
 *
 * A logger level change is logged, and published as the platform event `logger.level` with its
 * actor (the management domain audits it); it applies to this process only.
 */
import type { FastifyBaseLogger, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Registry } from './prom.js';
import { Type, type TSchema } from 'typebox';
import { DomainError } from './errors.js';
import type { DatabaseHandle } from './database.js';
import type { EventBus } from './events.js';
import { ROOT_LOGGER, SPRING_LEVELS, springLevel, type LoggerLevel, type LogLevels, type PlatformEvents, type SpringLevel } from './logging.js';

/** A health check that takes longer than this counts as DOWN (Kubernetes probes time out at 1 s by default). */
const DB_CHECK_TIMEOUT_MS = 2000;

// ---------------------------------------------------------------------------------------------
// Schemas

const Status = Type.Enum(['UP', 'DOWN'], { type: 'string' });

const DbHealth = Type.Object({
  status: Status,
  details: Type.Object({
    database: Type.String({ examples: ['PostgreSQL', 'PGlite'] }),
    error: Type.Optional(Type.String({ description: 'Why the check failed' })),
  }),
});

export const Health = Type.Object({
  status: Status,
  components: Type.Object({ db: DbHealth, ping: Type.Object({ status: Status }) }),
  groups: Type.Array(Type.String(), { examples: [['liveness', 'readiness']] }),
}, { description: 'Aggregate health; 503 when a component is DOWN' });

export const GroupHealth = Type.Object({ status: Status });

export const Info = Type.Object({
  app: Type.Object({
    name: Type.String({ examples: ['radar-platform'] }),
    version: Type.String(),
    profile: Type.String({ examples: ['dev', 'prod'] }),
  }),
});

export const PrometheusText = {
  description: 'Prometheus text exposition format 0.0.4',
  content: { 'text/plain': { schema: { type: 'string' } } },
};

const Level = Type.Enum([...SPRING_LEVELS], { type: 'string' });
const LoggerLevels = Type.Object({
  configuredLevel: Type.Union([Level, Type.Null()], { description: 'Set at run time; null: follows ROOT' }),
  effectiveLevel: Level,
});
const Loggers = Type.Object({
  levels: Type.Array(Level),
  loggers: Type.Record(Type.String(), LoggerLevels),
  groups: Type.Object({}),
}, { description: "Spring Boot's loggers endpoint: ROOT and the service's log components" });
const LoggerParams = Type.Object({ name: Type.String({ minLength: 1, maxLength: 100, examples: ['ROOT', 'scheduler'] }) });
// Any case (`debug`, `DEBUG`), as Spring reads it; an unknown level is a 400 naming the levels.
const LevelText = Type.String({ minLength: 1, maxLength: 10, examples: ['DEBUG'] });
const LoggerChange = Type.Object({
  configuredLevel: Type.Optional(Type.Union([LevelText, Type.Null()], { description: 'null or absent: reset (ROOT: to its start level)' })),
}, { additionalProperties: false });
const LoggerVm = Type.Object({ name: Type.String(), level: Type.String({ examples: ['INFO'] }) }, { description: "ManagementPortal's LoggerVM" });
const LoggerVmChange = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 100 }),
  level: LevelText,
}, { additionalProperties: false });

// ---------------------------------------------------------------------------------------------
// Use cases

interface DbCheck {
  status: 'UP' | 'DOWN';
  details: { database: string; error?: string };
}

/** `Name: message` of the innermost cause, with any URL credentials masked: safe for a public body. */
export function describeError(err: unknown): string {
  let e: unknown = err;
  while (e instanceof Error && e.cause instanceof Error) e = e.cause;
  const text = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
  return text.replace(/([a-z][a-z0-9+.-]*:\/\/[^:/?#\s@]*):[^@\s/]*@/gi, '$1:***@').split('\n')[0]!.slice(0, 200);
}

async function checkDatabase(db: DatabaseHandle): Promise<DbCheck> {
  const database = db.kind === 'postgres' ? 'PostgreSQL' : 'PGlite';
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      db.ping(),
      new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${DB_CHECK_TIMEOUT_MS} ms`)), DB_CHECK_TIMEOUT_MS);
      }),
    ]);
    return { status: 'UP', details: { database } };
  } catch (err) {
    return { status: 'DOWN', details: { database, error: describeError(err) } };
  } finally {
    clearTimeout(timer);
  }
}

class NoLogger extends DomainError {
  constructor(name: string) { super(404, `No logger named ${name}`); }
}
class BadLevel extends DomainError {
  constructor(level: string) { super(400, `Unknown log level ${level}: one of ${SPRING_LEVELS.join(', ')}`); }
}

/** Who changes a level, and through which endpoints. */
export interface OperationsActor { name: string; via: 'actuator' | 'management' }

export interface Operations {
  health(): Promise<{ status: 200 | 503; body: { status: 'UP' | 'DOWN'; components: { db: DbCheck; ping: { status: 'UP' } }; groups: string[] } }>;
  readiness(): Promise<{ status: 200 | 503; body: { status: 'UP' | 'DOWN' } }>;
  info(): { app: { name: string; version: string; profile: string } };
  prometheus(): Promise<{ contentType: string; text: string }>;
  /** Spring Boot's `GET loggers`. */
  loggers(): { levels: SpringLevel[]; loggers: Record<string, Omit<LoggerLevel, 'name'>>; groups: Record<string, never> };
  /** Spring Boot's `GET loggers/{name}`; 404 for an unknown name. */
  logger(name: string): Omit<LoggerLevel, 'name'>;
  /** Sets (null: resets) a logger's level, logs and publishes the change; 404 unknown name, 400 unknown level. */
  setLevel(name: string, level: string | null, actor: OperationsActor): void;
  /** ManagementPortal's `GET /management/logs`: every logger's effective level. */
  logs(): { name: string; level: string }[];
}

export function createOperations(deps: {
  /** `beforeScrape` runs before the registry is read (it starts the deferred process metrics). */
  db: DatabaseHandle; metrics: Registry; beforeScrape?: () => void; logLevels: LogLevels; events: EventBus; log: FastifyBaseLogger;
  app: { version: string; profile: string };
}): Operations {
  const { db, metrics, logLevels, log } = deps;
  const events = deps.events as unknown as EventBus<PlatformEvents>;
  const withoutName = ({ configuredLevel, effectiveLevel }: LoggerLevel) => ({ configuredLevel, effectiveLevel });
  return {
    async health() {
      const dbCheck = await checkDatabase(db);
      return {
        status: dbCheck.status === 'UP' ? 200 : 503,
        body: { status: dbCheck.status, components: { db: dbCheck, ping: { status: 'UP' } }, groups: ['liveness', 'readiness'] },
      };
    },
    async readiness() {
      const { status } = await checkDatabase(db);
      return { status: status === 'UP' ? 200 : 503, body: { status } };
    },
    info: () => ({ app: { name: 'radar-platform', version: deps.app.version, profile: deps.app.profile } }),
    async prometheus() {
      deps.beforeScrape?.();
      return { contentType: metrics.contentType, text: await metrics.metrics() };
    },
    loggers: () => ({
      levels: [...SPRING_LEVELS],
      loggers: Object.fromEntries(logLevels.list().map((l) => [l.name, withoutName(l)])),
      groups: {},
    }),
    logger(name) {
      const found = logLevels.get(name);
      if (!found) throw new NoLogger(name);
      return withoutName(found);
    },
    setLevel(name, text, actor) {
      const level = text === null ? null : springLevel(text);
      if (level === undefined) throw new BadLevel(String(text));
      if (!logLevels.get(name)) throw new NoLogger(name);
      const logger = name.toUpperCase() === ROOT_LOGGER ? ROOT_LOGGER : name;
      // Logged before the change, so a change to a quieter level is still seen.
      log.info({ logger, configuredLevel: level, actor: actor.name, via: actor.via }, 'log level changed');
      const after = logLevels.set(logger, level)!;
      events.publish('logger.level', { logger, configuredLevel: level, effectiveLevel: after.effectiveLevel, actor: actor.name, via: actor.via });
    },
    logs: () => logLevels.list().map((l) => ({ name: l.name, level: l.effectiveLevel })),
  };
}

// ---------------------------------------------------------------------------------------------
// Routes (registered by each scope that serves them, inside its own error handling)

/** The open endpoints: `health` and its `liveness` and `readiness` groups. */
export const healthRoutes: FastifyPluginAsyncTypebox<{ operations: Operations; tags: string[] }> = async (app, { operations, tags }) => {
  app.get('/health', {
    schema: { tags, summary: 'Health of the service and its database', response: { 200: Health, 503: Health } },
  }, async (_req, reply) => {
    const { status, body } = await operations.health();
    return reply.code(status).send(body);
  });

  app.get('/health/liveness', {
    schema: { tags, summary: 'Liveness probe: UP while the process serves requests', response: { 200: GroupHealth } },
  }, async () => ({ status: 'UP' as const }));

  app.get('/health/readiness', {
    schema: { tags, summary: 'Readiness probe: UP when the database answers', response: { 200: GroupHealth, 503: GroupHealth } },
  }, async (_req, reply) => {
    const { status, body } = await operations.readiness();
    return reply.code(status).send(body);
  });
};

export interface GuardedOperationsOptions {
  operations: Operations;
  tags: string[];
  /** The endpoints to serve (the actuator serves `info` openly, elsewhere). */
  endpoints: ('info' | 'prometheus' | 'loggers' | 'logs')[];
  /** Checks the caller, after the scope's own authentication. */
  guard?: preHandlerAsyncHookHandler;
  /** The scope's error body, and the statuses its authentication and `guard` refuse with. */
  errorBody: TSchema;
  refusals: number[];
  /** The OpenAPI security of the endpoints (none: open). */
  security?: Record<string, string[]>[];
  /** The caller's name for the log and the audit. */
  actorOf(request: FastifyRequest): OperationsActor;
}

/** The endpoints for administrators: `info`, `prometheus`, `loggers` and ManagementPortal's `logs`. */
export const guardedOperationRoutes: FastifyPluginAsyncTypebox<GuardedOperationsOptions> = async (app, options) => {
  const { operations, tags, endpoints, guard, errorBody, refusals, actorOf } = options;
  const serve = new Set(endpoints);
  const preHandler = guard ? [guard] : [];
  const errors = Object.fromEntries(refusals.map((status) => [status, errorBody]));
  const security = options.security ? { security: options.security } : {};
  const notFound = { 404: errorBody };

  if (serve.has('info')) {
    app.get('/info', {
      schema: { tags, summary: 'Application name, version and profile', ...security, response: { 200: Info, ...errors } }, preHandler,
    }, async () => operations.info());
  }

  if (serve.has('prometheus')) {
    app.get('/prometheus', {
      schema: { tags, summary: 'All metrics for Prometheus', ...security, response: { 200: PrometheusText, ...errors } }, preHandler,
    }, async (_req, reply) => {
      const { contentType, text } = await operations.prometheus();
      return reply.type(contentType).send(text);
    });
  }

  if (serve.has('loggers')) {
    app.get('/loggers', {
      schema: { tags, summary: 'Log levels of ROOT and of every log component', ...security, response: { 200: Loggers, ...errors } }, preHandler,
    }, async () => operations.loggers());

    app.get('/loggers/:name', {
      schema: { tags, summary: "One logger's levels", ...security, params: LoggerParams, response: { 200: LoggerLevels, ...notFound, ...errors } }, preHandler,
    }, async (req) => operations.logger(req.params.name));

    app.post('/loggers/:name', {
      schema: {
        tags, summary: "Set a logger's level in this process (null: reset)", ...security, params: LoggerParams, body: LoggerChange,
        response: { 204: Type.Null({ description: 'Changed' }), 400: errorBody, ...notFound, ...errors },
      },
      preHandler,
    }, async (req, reply) => {
      operations.setLevel(req.params.name, req.body.configuredLevel ?? null, actorOf(req));
      return reply.code(204).send(null);
    });
  }

  if (serve.has('logs')) {
    app.get('/logs', {
      schema: { tags, summary: "Every logger's effective level (ManagementPortal's LogsResource)", ...security, response: { 200: Type.Array(LoggerVm), ...errors } }, preHandler,
    }, async () => operations.logs());

    app.put('/logs', {
      schema: {
        tags, summary: "Set a logger's level in this process (ManagementPortal's LogsResource)", ...security, body: LoggerVmChange,
        response: { 204: Type.Null({ description: 'Changed' }), 400: errorBody, ...notFound, ...errors },
      },
      preHandler,
    }, async (req, reply) => {
      operations.setLevel(req.body.name, req.body.level, actorOf(req));
      return reply.code(204).send(null);
    });
  }
};
