/** The four decorators platform plugins put on the root instance (STYLE §2.2). */
import type { Config } from '../config.js';
import type { DatabaseHandle } from './database.js';
import type { EventBus } from './events.js';

declare module 'fastify' {
  interface FastifyInstance {
    config: Config;
    db: DatabaseHandle;
    /** The one in-process bus, untyped here: each domain works with a typed view under its own event map. */
    events: EventBus;
    /** Per-app Prometheus registry (platform/actuator.ts); plugins add their counters and histograms to it. */
    metrics: import('prom-client').Registry;
    /** The named loggers whose levels change at run time (platform/logging.ts): `app.logLevels.component(name)` makes a component's logger. */
    logLevels: import('./logging.js').LogLevels;
    /** The operational endpoints' use cases (platform/operations.ts), shared by `/actuator` and the management domain's `/management`. */
    operations: import('./operations.js').Operations;
    /** Outgoing mail (platform/mail.ts), shared by both domains. */
    mail: import('./mail.js').Mailer;
  }
}

export {};
