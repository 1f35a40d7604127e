/**
 * prom-client's classes from their own files. The package's index also loads its default metrics
 * (a dozen collectors and `@opentelemetry/api`), the cluster aggregator and the Pushgateway: about
 * 40 ms of a ~0.9 s start, for what the service registers only after it listens (`actuator.ts`).
 * The types stay the package's own.
 */
import { createRequire } from 'node:module';
import type * as Prom from 'prom-client';

const require = createRequire(import.meta.url);

export type Registry = Prom.Registry;
export const Registry = require('prom-client/lib/registry') as typeof Prom.Registry;
export type Counter<T extends string = string> = Prom.Counter<T>;
export const Counter = require('prom-client/lib/counter') as typeof Prom.Counter;
export type Histogram<T extends string = string> = Prom.Histogram<T>;
export const Histogram = require('prom-client/lib/histogram') as typeof Prom.Histogram;
export type { MetricObjectWithValues, MetricValue } from 'prom-client';

/** `collectDefaultMetrics`, loaded on first use. */
export const collectDefaultMetrics = (config: Prom.DefaultMetricsCollectorConfiguration<Prom.RegistryContentType>): void =>
  (require('prom-client/lib/defaultMetrics') as typeof Prom.collectDefaultMetrics)(config);
