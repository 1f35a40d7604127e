/**
 * Operational endpoints in the shapes of Spring Boot Actuator, which the reference services'
 * deployments probe and scrape:
 *  - public: `/actuator/health` (+ `/liveness`, `/readiness`) and `/actuator/info`;
 *  - admin (HTTP basic, RADAR_ADMIN_USER / RADAR_ADMIN_PASSWORD): `/actuator/prometheus`,
 *    `/actuator/metrics[/:name]`, the `/actuator` index and any unknown `/actuator/*` path.
 *
 * Every app owns its own prom-client `Registry` (decorated as `app.metrics` for other plugins'
 * counters and histograms), so two apps in one process share no metric state.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import { createRequire } from 'node:module';
import { PerformanceObserver, type IntervalHistogram } from 'node:perf_hooks';
import fp from 'fastify-plugin';
import basicAuth from '@fastify/basic-auth';
import { collectDefaultMetrics, Histogram, Registry, type MetricObjectWithValues, type MetricValue } from './prom.js';
import { Type, type Static } from 'typebox';
import type { FastifyError, FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { createErrorHandler, documentClientErrors, DomainError, type ErrorFormat } from './errors.js';
import { acceptEmptyJsonBodies } from './json-body.js';
import { createOperations, guardedOperationRoutes, healthRoutes, type Operations } from './operations.js';

export { describeError } from './operations.js';

const REALM = 'actuator';
const tags = ['actuator'];
const adminSecurity = [{ adminBasic: [] }];

// ---------------------------------------------------------------------------------------------
// Schemas

const ActuatorError = Type.Object({
  status: Type.Integer({ examples: [401] }),
  error: Type.String({ examples: ['Unauthorized'] }),
  message: Type.String(),
}, { description: 'Error body of the actuator endpoints' });

const Link = Type.Object({ href: Type.String(), templated: Type.Boolean() });
const Links = Type.Object({ _links: Type.Record(Type.String(), Link) }, { description: 'The actuator endpoints' });

const MetricNames = Type.Object({ names: Type.Array(Type.String()) });

const MetricParams = Type.Object({ name: Type.String({ minLength: 1, maxLength: 200 }) });
const MetricQuery = Type.Object({
  tag: Type.Optional(Type.Array(Type.String({ pattern: '^[^:]+:.*$' }), {
    description: 'Filter `key:value`; repeat for several tags (as Spring Boot Actuator)',
  })),
});

const Measurement = Type.Object({
  statistic: Type.String({ examples: ['VALUE', 'COUNT', 'TOTAL_TIME'] }),
  value: Type.Number(),
});

const MetricDetail = Type.Object({
  name: Type.String(),
  description: Type.String(),
  baseUnit: Type.Optional(Type.String({ examples: ['seconds', 'bytes'] })),
  measurements: Type.Array(Measurement),
  availableTags: Type.Array(Type.Object({ tag: Type.String(), values: Type.Array(Type.String()) })),
});
type MetricDetail = Static<typeof MetricDetail>;

// ---------------------------------------------------------------------------------------------
// Metrics

/**
 * `collectDefaultMetrics` starts an event-loop-delay monitor and a GC `PerformanceObserver`
 * that it never stops, so every closed app would leave both running. They are captured while
 * it registers (synchronously) and the returned function stops them, on app close.
 *
 * Started a second after the server listens (loading and registering them is work that can wait,
 * issue 30 item 5), or at the first scrape before that (tests inject without listening); once.
 */
function deferredProcessMetrics(register: Registry): { start: () => void; stop: () => void } {
  let stop: (() => void) | undefined;
  let stopped = false;
  return {
    start: () => {
      if (!stop && !stopped) stop = collectProcessMetrics(register);
    },
    stop: () => {
      stopped = true;
      stop?.();
    },
  };
}

function collectProcessMetrics(register: Registry): () => void {
  const perfHooks = createRequire(import.meta.url)('node:perf_hooks') as {
    monitorEventLoopDelay: (options?: { resolution?: number }) => IntervalHistogram;
  };
  const observers: PerformanceObserver[] = [];
  const monitors: IntervalHistogram[] = [];
  const { observe } = PerformanceObserver.prototype;
  const { monitorEventLoopDelay } = perfHooks;
  PerformanceObserver.prototype.observe = function capture(this: PerformanceObserver, ...args) {
    observers.push(this);
    return observe.apply(this, args);
  };
  perfHooks.monitorEventLoopDelay = (options) => {
    const monitor = monitorEventLoopDelay(options);
    monitors.push(monitor);
    return monitor;
  };
  try {
    collectDefaultMetrics({ register });
  } finally {
    PerformanceObserver.prototype.observe = observe;
    perfHooks.monitorEventLoopDelay = monitorEventLoopDelay;
  }
  return () => {
    for (const observer of observers) observer.disconnect();
    for (const monitor of monitors) monitor.disable();
  };
}

const baseUnitOf = (name: string): string | undefined =>
  /_seconds(_total)?$/.test(name) ? 'seconds' : /_bytes(_total)?$/.test(name) ? 'bytes' : undefined;

const sum = (values: MetricValue<string>[]) => values.reduce((total, v) => total + v.value, 0);

/**
 * One metric in the shape of Spring Boot's `/actuator/metrics/{name}`: series matching `filter`
 * summed per statistic (COUNT for counters, VALUE for gauges, COUNT and TOTAL/TOTAL_TIME for
 * histograms and summaries), plus the label values of the matching series. Undefined when no
 * series matches the filter.
 */
function toMetricDetail(metric: MetricObjectWithValues<MetricValue<string>>, filter: [string, string][]): MetricDetail | undefined {
  // Typed as a numeric enum, but at run time prom-client reports 'counter', 'gauge', 'histogram' or 'summary'.
  const type = String(metric.type);
  const values = metric.values.filter((v) => filter.every(([key, value]) => String(v.labels[key] ?? '') === value));
  if (values.length === 0 && filter.length > 0) return undefined;
  const byName = (suffix: string) => values.filter((v) => (v as { metricName?: string }).metricName === `${metric.name}${suffix}`);
  const baseUnit = baseUnitOf(metric.name);

  let measurements: { statistic: string; value: number }[];
  switch (type) {
    case 'counter':
      measurements = [{ statistic: 'COUNT', value: sum(values) }];
      break;
    case 'histogram':
    case 'summary':
      measurements = [
        { statistic: 'COUNT', value: sum(byName('_count')) },
        { statistic: baseUnit === 'seconds' ? 'TOTAL_TIME' : 'TOTAL', value: sum(byName('_sum')) },
      ];
      break;
    default:
      measurements = [{ statistic: 'VALUE', value: sum(values) }];
  }

  const filtered = new Set(filter.map(([key]) => key));
  const tagValues = new Map<string, Set<string>>();
  for (const v of values) {
    for (const [key, value] of Object.entries(v.labels)) {
      if (key === 'le' || key === 'quantile' || filtered.has(key) || value === undefined) continue;
      let set = tagValues.get(key);
      if (!set) tagValues.set(key, (set = new Set()));
      set.add(String(value));
    }
  }
  return {
    name: metric.name,
    description: metric.help,
    ...(baseUnit ? { baseUnit } : {}),
    measurements,
    availableTags: [...tagValues].map(([tag, set]) => ({ tag, values: [...set].sort() })),
  };
}

// ---------------------------------------------------------------------------------------------
// Routes

/** Spring Boot's error body: `{ status, error, message }`. */
export const actuatorErrorFormat: ErrorFormat = {
  body: (status, message) => ({ status, error: STATUS_CODES[status] ?? 'Error', message }),
};

class NotFound extends DomainError {
  constructor(message: string) { super(404, message); }
}

class BadCredentials extends DomainError {
  constructor() { super(401, 'Bad credentials'); }
}

const statusOf = (error: unknown): number | undefined =>
  error instanceof DomainError ? error.status : (error as Partial<FastifyError>).statusCode;

/** Credentials compared in constant time: both sides hashed to equal-length digests first. */
function credentialsCheck(user: string, password: string) {
  const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();
  const expectedUser = digest(user);
  const expectedPassword = digest(password);
  return async (givenUser: string, givenPassword: string) => {
    const userOk = timingSafeEqual(digest(givenUser), expectedUser);
    const passwordOk = timingSafeEqual(digest(givenPassword), expectedPassword);
    if (!(userOk && passwordOk)) throw new BadCredentials();
  };
}

type ActuatorRoutesOptions = { metrics: Registry; operations: Operations; beforeScrape: () => void };

const actuatorRoutes: FastifyPluginAsyncTypebox<ActuatorRoutesOptions> = async (app, { metrics, operations, beforeScrape }) => {
  const handleError = createErrorHandler(actuatorErrorFormat);
  // Spring Boot Admin posts a logger change as `application/vnd.spring-boot.actuator.v2+json`.
  acceptEmptyJsonBodies(app);
  app.addHook('onRoute', documentClientErrors({ badRequest: ActuatorError, uriTooLong: ActuatorError, unsupportedMediaType: ActuatorError }));
  app.setErrorHandler((error, request: FastifyRequest, reply: FastifyReply) => {
    if (statusOf(error) === 401) reply.header('www-authenticate', `Basic realm="${REALM}"`);
    return handleError(error, request, reply);
  });

  const { adminUser, adminPassword } = app.config;
  await app.register(basicAuth, { validate: credentialsCheck(adminUser, adminPassword), authenticate: false });
  // Unknown actuator paths need the admin credentials too, so they reveal nothing to anonymous callers.
  app.setNotFoundHandler({ preHandler: app.basicAuth }, (request) => {
    throw new NotFound(`No endpoint ${request.method} ${request.url.split('?')[0]}`);
  });

  await app.register(healthRoutes, { operations, tags });
  await app.register(guardedOperationRoutes, {
    operations, tags, endpoints: ['info'], errorBody: ActuatorError, refusals: [], actorOf: () => ({ name: adminUser, via: 'actuator' }),
  });

  await app.register(adminRoutes, { metrics, operations, beforeScrape });
};

const adminRoutes: FastifyPluginAsyncTypebox<ActuatorRoutesOptions> = async (app, { metrics, operations, beforeScrape }) => {
  app.addHook('onRequest', app.basicAuth);
  // The metric endpoints list and read the process metrics too, started or not yet.
  app.addHook('preHandler', (_request, _reply, done) => {
    beforeScrape();
    done();
  });
  const errors = { 401: ActuatorError };

  app.get('/', {
    schema: { tags, summary: 'Links to the actuator endpoints', security: adminSecurity, response: { 200: Links, ...errors } },
  }, async (request) => {
    const base = `${request.protocol}://${request.host}${request.url.split('?')[0]!.replace(/\/$/, '')}`;
    const link = (path: string, templated = false) => ({ href: `${base}${path}`, templated });
    return {
      _links: {
        self: link(''),
        health: link('/health'),
        'health-path': link('/health/{*path}', true),
        info: link('/info'),
        prometheus: link('/prometheus'),
        loggers: link('/loggers'),
        'loggers-name': link('/loggers/{name}', true),
        metrics: link('/metrics'),
        'metrics-requiredMetricName': link('/metrics/{requiredMetricName}', true),
      },
    };
  });

  // The actuator's admin user is the one who changes a level here (the audit's principal).
  await app.register(guardedOperationRoutes, {
    operations, tags, endpoints: ['prometheus', 'loggers'], errorBody: ActuatorError, refusals: [401], security: adminSecurity,
    actorOf: () => ({ name: app.config.adminUser, via: 'actuator' }),
  });

  app.get('/metrics', {
    schema: { tags, summary: 'Names of all metrics', security: adminSecurity, response: { 200: MetricNames, ...errors } },
  }, async () => ({ names: metrics.getMetricsAsArray().map((m) => m.name).sort() }));

  app.get('/metrics/:name', {
    schema: {
      tags, summary: 'One metric, optionally filtered by tags', security: adminSecurity,
      params: MetricParams, querystring: MetricQuery,
      response: { 200: MetricDetail, 400: ActuatorError, 404: ActuatorError, ...errors },
    },
  }, async (req) => {
    const { name } = req.params;
    if (!metrics.getSingleMetric(name)) throw new NotFound(`No metric named ${name}`);
    // The default metrics are filled in groups by one member's collect(), so read them the way a
    // scrape does (all at once) rather than with this one metric's get().
    const metric = (await metrics.getMetricsAsJSON()).find((m) => m.name === name);
    if (!metric) throw new NotFound(`No metric named ${name}`);
    const filter = (req.query.tag ?? []).map((tag): [string, string] => {
      const i = tag.indexOf(':');
      return [tag.slice(0, i), tag.slice(i + 1)];
    });
    const detail = toMetricDetail(metric, filter);
    if (!detail) throw new NotFound(`No series of ${name} matches ${(req.query.tag ?? []).join(', ')}`);
    return detail;
  });
};

// ---------------------------------------------------------------------------------------------
// Plugin

export const actuatorPlugin: FastifyPluginAsync = fp(async (app: FastifyInstance) => {
  const metrics = new Registry();
  const processMetrics = deferredProcessMetrics(metrics);
  app.decorate('metrics', metrics);
  app.addHook('onListen', (done) => {
    setTimeout(processMetrics.start, 1000).unref();
    done();
  });
  app.addHook('onClose', async () => {
    processMetrics.stop();
    metrics.clear();
  });

  const requests = new Histogram({
    name: 'http_server_requests_seconds',
    help: 'Duration of HTTP server requests',
    labelNames: ['method', 'uri', 'status'] as const,
    registers: [metrics],
  });
  // On the root instance, so every route and every 404 is measured. `uri` is the route pattern,
  // never the raw URL (unbounded label values would blow up the series count); elapsedTime runs
  // from onRequest to now. A callback hook: an async one costs every request a promise.
  app.addHook('onResponse', (request, reply, done) => {
    const uri = request.is404 ? 'UNKNOWN' : (request.routeOptions.url ?? 'UNKNOWN');
    requests.observe({ method: request.method, uri, status: String(reply.statusCode) }, reply.elapsedTime / 1000);
    done();
  });

  const operations = createOperations({
    db: app.db, metrics, beforeScrape: processMetrics.start, logLevels: app.logLevels, events: app.events, log: app.logLevels.component('actuator'),
    app: { version: app.config.version, profile: app.config.profile },
  });
  app.decorate('operations', operations);
  await app.register(actuatorRoutes, { prefix: '/actuator', metrics, operations, beforeScrape: processMetrics.start });
}, { name: 'platform-actuator', dependencies: ['platform-database'] });
