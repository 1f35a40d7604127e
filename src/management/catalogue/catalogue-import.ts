/**
 * Catalogue server auto-import (the reference's `SourceTypeLoader`, managementportal.md §10):
 * at start, fetch the RADAR-Schemas catalogue and create the source types it lists that do not
 * exist yet, with their source data. Existing types are never updated.
 *
 * Unlike the reference, which fetched once and synchronously during start-up, the import runs in
 * the background: start-up never waits for the catalogue server. Each fetch has a timeout, and a
 * failed attempt (no answer, non-2xx, unreadable body, database error) is retried after growing
 * delays, then given up with an error log. Nothing is thrown out of it.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyBaseLogger } from 'fastify';
import { sqlState, type Database } from '../../platform/database.js';
import { recordRevision } from '../api/revisions/queries.js';
import { sourceTypeDto } from '../api/source-types/dto.js';
import { displayName } from '../api/source-types/service.js';
import { CatalogueFormatError, parseCatalogue, planCatalogue, type CataloguePlan, type PlannedSourceType, type Skip } from './catalogue.js';
import { insertSourceDataIfAbsent, insertSourceTypeIfAbsent, sourceTypeKeys, tupleKey } from './queries.js';

/** The author of the import's rows and revisions, as in the reference's Envers audit. */
const AUTHOR = 'system';

export const DEFAULT_FETCH_TIMEOUT_MS = 10_000;
/** Delays before the 2nd, 3rd, … attempt; after the last one the import gives up. */
export const DEFAULT_RETRY_DELAYS_MS: readonly number[] = [5_000, 30_000, 120_000, 600_000];

class CatalogueHttpError extends Error {}

export interface CatalogueImportSummary {
  /** Keys (`producer model version`) of the source types created. */
  created: string[];
  /** Source types not created: already there, or unusable (missing vendor, model or version…). */
  skipped: Skip[];
  sourceDataCreated: number;
  /** Source data not created: the name exists, or the topic is unusable. */
  sourceDataSkipped: Skip[];
  /** Source types whose transaction failed (they are tried again on the next attempt). */
  failed: Skip[];
}

export interface ImportResult extends Omit<CatalogueImportSummary, 'failed'> {
  /** `imported`: an attempt succeeded; `gave-up`: every attempt failed or the URL is invalid; `stopped`: `stop()` came first. */
  outcome: 'imported' | 'gave-up' | 'stopped';
  attempts: number;
}

export interface CatalogueImportOptions {
  db: Database;
  /** `MANAGEMENTPORTAL_CATALOGUE_SERVER_SERVER_URL`. */
  url: string;
  log: FastifyBaseLogger;
  fetchTimeoutMs?: number;
  retryDelaysMs?: readonly number[];
  /** Clock in epoch milliseconds, for the rows' and revisions' dates. */
  now?: () => number;
}

export interface CatalogueImportHandle {
  /** Cancels a pending retry or fetch; an import transaction under way finishes first. */
  stop(): void;
  /** Settles (never rejects) when the import is over; await it after `stop()` before closing the database. */
  done: Promise<ImportResult>;
}

/**
 * Starts the import in the background and returns at once. Idempotent, and safe with several
 * instances starting together: each type is created once, the others see it as existing.
 */
export function startCatalogueImport(opts: CatalogueImportOptions): CatalogueImportHandle {
  const controller = new AbortController();
  const done = runImport(opts, controller.signal).catch((err: unknown): ImportResult => {
    // Not reached by design; a bug here must still not surface as an unhandled rejection.
    opts.log.error({ err }, 'catalogue import crashed');
    return { outcome: 'gave-up', attempts: 0, created: [], skipped: [], sourceDataCreated: 0, sourceDataSkipped: [] };
  });
  return { stop: () => controller.abort(), done };
}

/**
 * GETs the catalogue; credentials in the URL go as HTTP Basic (fetch refuses them in the URL).
 * @throws on a network error, timeout or abort (`signal`), or a non-2xx status.
 */
export async function fetchCatalogue(url: string, signal: AbortSignal): Promise<string> {
  const target = new URL(url);
  const headers: Record<string, string> = { accept: 'application/json' };
  if (target.username !== '' || target.password !== '') {
    const credentials = `${decodeURIComponent(target.username)}:${decodeURIComponent(target.password)}`;
    headers.authorization = `Basic ${Buffer.from(credentials).toString('base64')}`;
    target.username = '';
    target.password = '';
  }
  const response = await fetch(target, { signal, headers });
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    throw new CatalogueHttpError(`HTTP ${response.status}`);
  }
  return response.text();
}

/**
 * Creates the planned source types that do not exist yet, each with its source data and its
 * `sourceType` ADD revision in one transaction. A failing type is logged and reported in `failed`;
 * the others go on.
 */
export async function importCatalogue(db: Database, plan: CataloguePlan, deps: { log: FastifyBaseLogger; now?: () => number; signal?: AbortSignal }): Promise<CatalogueImportSummary> {
  const summary: CatalogueImportSummary = { created: [], skipped: [...plan.skipped], sourceDataCreated: 0, sourceDataSkipped: [], failed: [] };
  const existing = await sourceTypeKeys(db);
  for (const planned of plan.types) {
    if (deps.signal?.aborted) break;
    if (existing.has(tupleKey(planned.type.producer, planned.type.model, planned.type.catalogVersion))) {
      summary.skipped.push({ name: planned.key, reason: 'exists' });
      continue;
    }
    try {
      const outcome = await createSourceType(db, planned, new Date((deps.now ?? Date.now)()));
      if (outcome === undefined) {
        // Created meanwhile by another instance.
        summary.skipped.push({ name: planned.key, reason: 'exists' });
        continue;
      }
      summary.created.push(planned.key);
      summary.sourceDataCreated += outcome.created;
      summary.sourceDataSkipped.push(...planned.dataSkipped, ...outcome.existing.map((name) => ({ name, reason: 'exists' })));
    } catch (err) {
      deps.log.error({ sourceType: planned.key, sqlState: sqlState(err) }, 'catalogue source type import failed');
      summary.failed.push({ name: planned.key, reason: sqlState(err) ?? (err instanceof Error ? err.message : String(err)) });
    }
  }
  return summary;
}

async function createSourceType(db: Database, planned: PlannedSourceType, at: Date): Promise<{ created: number; existing: string[] } | undefined> {
  const audit = { createdBy: AUTHOR, createdDate: at, lastModifiedBy: AUTHOR, lastModifiedDate: at };
  return db.transaction(async (tx) => {
    const row = await insertSourceTypeIfAbsent(tx, { ...planned.type, canRegisterDynamically: false, ...audit });
    if (!row) return undefined;
    const data = await insertSourceDataIfAbsent(tx, planned.data.map((d) => ({ ...d, dataClass: null, enabled: true, sourceTypeId: row.id, ...audit })));
    data.sort((a, b) => a.id - b.id);
    await recordRevision(tx, AUTHOR, [{
      entityType: 'sourceType', entityId: row.id, entityKey: displayName(row), revisionType: 'ADD', entity: sourceTypeDto(row, data),
    }], at);
    // Each inserted name accounts for one planned topic; the rest (taken, or repeated) were skipped.
    const inserted = new Set(data.map((d) => d.sourceDataName));
    return { created: data.length, existing: planned.data.map((d) => d.sourceDataName).filter((name) => !inserted.delete(name)) };
  });
}

async function runImport(opts: CatalogueImportOptions, signal: AbortSignal): Promise<ImportResult> {
  const { db, log } = opts;
  const timeoutMs = opts.fetchTimeoutMs ?? DEFAULT_FETCH_TIMEOUT_MS;
  const delays = opts.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;
  const result: ImportResult = { outcome: 'gave-up', attempts: 0, created: [], skipped: [], sourceDataCreated: 0, sourceDataSkipped: [] };

  let url: string;
  try {
    url = safeUrl(opts.url);
  } catch {
    log.error({ setting: 'MANAGEMENTPORTAL_CATALOGUE_SERVER_SERVER_URL' }, 'catalogue import not started: invalid URL');
    return result;
  }
  log.info({ url }, 'catalogue import started');

  for (;;) {
    if (signal.aborted) return { ...result, outcome: 'stopped' };
    result.attempts += 1;
    let failure: string;
    try {
      const body = await fetchCatalogue(opts.url, AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]));
      const plan = planCatalogue(parseCatalogue(body));
      const summary = await importCatalogue(db, plan, { log, now: opts.now, signal });
      result.created.push(...summary.created);
      result.sourceDataCreated += summary.sourceDataCreated;
      // Types this import created on an earlier attempt are not reported as found.
      const ours = new Set(result.created);
      result.skipped = summary.skipped.filter((s) => !ours.has(s.name));
      result.sourceDataSkipped = summary.sourceDataSkipped;
      logSummary(log, summary, result.attempts);
      if (signal.aborted) return { ...result, outcome: 'stopped' };
      if (summary.failed.length === 0) return { ...result, outcome: 'imported' };
      failure = `${summary.failed.length} source type(s) failed: ${summary.failed.map((f) => f.name).join(', ')}`;
    } catch (err) {
      if (signal.aborted) return { ...result, outcome: 'stopped' };
      failure = reasonOf(err, timeoutMs);
    }
    const delay = delays[result.attempts - 1];
    if (delay === undefined) {
      log.error({ url, attempts: result.attempts, reason: failure }, 'catalogue import failed, giving up');
      return { ...result, outcome: 'gave-up' };
    }
    log.warn({ url, attempt: result.attempts, reason: failure, retryInMs: delay }, 'catalogue import failed, retrying');
    try {
      await sleep(delay, undefined, { signal });
    } catch {
      return { ...result, outcome: 'stopped' };
    }
  }
}

function logSummary(log: FastifyBaseLogger, summary: CatalogueImportSummary, attempt: number): void {
  const unusable = summary.skipped.filter((s) => s.reason !== 'exists');
  const unusableData = summary.sourceDataSkipped.filter((s) => s.reason !== 'exists');
  if (unusable.length > 0 || unusableData.length > 0) {
    log.warn({ sourceTypes: unusable, sourceData: unusableData }, 'catalogue entries skipped: cannot be stored');
  }
  log.info({
    attempt,
    created: summary.created.length,
    createdSourceTypes: summary.created,
    sourceDataCreated: summary.sourceDataCreated,
    existing: summary.skipped.filter((s) => s.reason === 'exists').map((s) => s.name),
    existingSourceData: summary.sourceDataSkipped.filter((s) => s.reason === 'exists').map((s) => s.name),
    skipped: unusable.length,
    failed: summary.failed.length,
  }, 'catalogue import done');
}

/** The URL without credentials, for logs. @throws TypeError when it is not a URL. */
function safeUrl(raw: string): string {
  const url = new URL(raw);
  url.username = '';
  url.password = '';
  return url.toString();
}

function reasonOf(err: unknown, timeoutMs: number): string {
  if (err instanceof CatalogueHttpError || err instanceof CatalogueFormatError) return err.message;
  if (err instanceof Error && err.name === 'TimeoutError') return `no answer within ${timeoutMs} ms`;
  const state = sqlState(err);
  if (state) return `database error ${state}`;
  const cause = err instanceof Error ? (err.cause as { code?: unknown } | undefined) : undefined;
  const message = err instanceof Error ? err.message : String(err);
  return typeof cause?.code === 'string' ? `${message}: ${cause.code}` : message;
}
