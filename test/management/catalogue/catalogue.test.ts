/**
 * Catalogue server auto-import (managementportal.md §10) against a local HTTP stand-in for the
 * RADAR-Schemas catalogue server: what lands in source_types, source_data and revision_changes,
 * idempotence, and the background behaviour when the server fails, hangs or is down.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { asc, eq, inArray } from 'drizzle-orm';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { captureLog } from '../../helpers/log-capture.js';
import { unique } from '../../helpers/management-api.js';
import { javaDoubleString } from '../../../src/management/catalogue/catalogue.js';
import { startCatalogueImport, type CatalogueImportOptions } from '../../../src/management/catalogue/catalogue-import.js';
import { revisionChanges, revisions, sourceData, sourceTypes } from '../../../src/management/schema.js';
import type { Database } from '../../../src/platform/database.js';

let t: TestApp;
let db: Database;
beforeAll(async () => {
  t = await buildTestApp();
  db = t.app.db.db;
});
afterAll(async () => { await t.close(); });

// ---- the catalogue server stand-in

interface Stub { url: string; requests(): number; close(): Promise<void> }

/** A catalogue server on loopback; `respond` answers the n-th request (0-based), or never, if it returns without ending. */
async function catalogueStub(respond: (n: number, res: ServerResponse, req: IncomingMessage) => void): Promise<Stub> {
  let n = 0;
  const server = createServer((req, res) => { respond(n++, res, req); });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/source-types`,
    requests: () => n,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

const json = (res: ServerResponse, body: unknown, status = 200) => {
  res.writeHead(status, { 'content-type': 'application/json' }).end(typeof body === 'string' ? body : JSON.stringify(body));
};

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

// ---- logs

function capturingLogger() {
  const captured = captureLog();
  return { log: pino({ level: 'debug' }, captured.stream), lines: captured.lines };
}
const WARN = 40;
const ERROR = 50;

function importer(url: string, opts: Partial<CatalogueImportOptions> = {}) {
  const { log, lines } = capturingLogger();
  const handle = startCatalogueImport({ db, url, log, fetchTimeoutMs: 2_000, retryDelaysMs: [], ...opts });
  return { handle, lines };
}

/** Resolves when `predicate` holds, polling the event loop (no fixed sleeps). */
async function until(predicate: () => boolean): Promise<void> {
  while (!predicate()) await new Promise((resolve) => setTimeout(resolve, 5));
}

// ---- a catalogue shaped like the RADAR-Schemas catalogue server's `GET /source-types`

const KEY_SCHEMA = 'org.radarcns.kafka.ObservationKey';

function catalogue(v: { e4: string; phone: string; incomplete: string; phq8: string; existing: string }) {
  return {
    'passive-source-types': [
      {
        name: 'EMPATICA_E4', doc: 'Empatica E4 wristband.', register_schema: true, scope: 'PASSIVE',
        app_provider: 'org.radarcns.empatica.E4ServiceProvider', vendor: v.e4, model: 'E4', version: '1.0.0',
        data: [
          {
            type: 'ACCELEROMETER', doc: 'Data from 3-axis accelerometer sensor.', topic: 'android_empatica_e4_acceleration',
            key_schema: KEY_SCHEMA, value_schema: 'org.radarcns.passive.empatica.EmpaticaE4Acceleration',
            sample_rate: { frequency: 32.0, dynamic: false, configurable: false }, unit: 'G', fields: [{ name: 'x' }, { name: 'y' }, { name: 'z' }],
            app_provider: 'org.radarcns.empatica.E4ServiceProvider', processing_state: 'RAW',
          },
          {
            type: 'BATTERY', doc: 'Device battery level.', topic: 'android_empatica_e4_battery_level',
            key_schema: KEY_SCHEMA, value_schema: 'org.radarcns.passive.empatica.EmpaticaE4BatteryLevel',
            sample_rate: { interval: 0.5, frequency: 0.5 }, unit: 'PERCENTAGE',
            app_provider: 'org.radarcns.empatica.E4ServiceProvider', processing_state: 'RAW',
          },
        ],
      },
      {
        name: 'ANDROID_PHONE', doc: 'Android phone sensors.', scope: 'PASSIVE',
        app_provider: 'org.radarbase.passive.phone.PhoneSensorProvider', vendor: v.phone, model: 'PHONE', version: '1.0.0',
        data: [
          {
            type: 'ACCELEROMETER', topic: 'android_phone_acceleration', key_schema: KEY_SCHEMA,
            value_schema: 'org.radarcns.passive.phone.PhoneAcceleration', sample_rate: { dynamic: true, configurable: true },
            unit: 'G', processing_state: 'RAW', app_provider: 'org.radarbase.passive.phone.PhoneSensorProvider',
          },
          // Its name is taken already (see the test): skipped, the type is still imported.
          {
            type: 'BATTERY', topic: 'android_phone_battery_level', key_schema: KEY_SCHEMA,
            value_schema: 'org.radarcns.passive.phone.PhoneBatteryLevel', unit: 'PERCENTAGE', processing_state: 'RAW',
          },
        ],
      },
      // No version: skipped.
      {
        name: 'FITBIT_CHARGE', doc: 'No version.', scope: 'PASSIVE', vendor: v.incomplete, model: 'CHARGE',
        data: [{ type: 'STEPS', topic: 'connect_fitbit_steps', key_schema: KEY_SCHEMA, value_schema: 'org.radarcns.connector.fitbit.FitbitIntradaySteps' }],
      },
    ],
    'active-source-types': [
      {
        assessment_type: 'QUESTIONNAIRE', name: 'PHQ8', doc: 'Patient Health Questionnaire, 8 items.',
        vendor: v.phq8, model: 'PHQ8', version: 'v1', scope: 'ACTIVE',
        data: [{
          type: 'PHQ8', topic: 'questionnaire_phq8', key_schema: KEY_SCHEMA, value_schema: 'org.radarcns.active.questionnaire.Questionnaire',
          questionnaire_definition_url: 'https://raw.githubusercontent.com/RADAR-base/RADAR-REDCap-aRMT-Definitions/master/questionnaires/phq8/phq8_armt.json',
        }],
      },
      // Exists already with another description: skipped, not updated.
      {
        assessment_type: 'APP', name: 'RADAR_PRMT', doc: 'Changed description.', vendor: v.existing, model: 'pRMT', version: '1.0.0', scope: 'ACTIVE',
        app_provider: 'org.radarbase.monitor.application.ApplicationStatusProvider',
        data: [{ type: 'APPLICATION_UPTIME', topic: 'application_uptime', key_schema: KEY_SCHEMA, value_schema: 'org.radarcns.monitor.application.ApplicationUptime' }],
      },
    ],
    'monitor-source-types': [],
    'connector-source-types': null,
  };
}

const vendors = () => ({
  e4: unique('EMPATICA'), phone: unique('ANDROID'), incomplete: unique('FITBIT'), phq8: unique('RADAR'), existing: unique('RADAR'),
});

async function typesOf(producers: readonly string[]) {
  return db.select().from(sourceTypes).where(inArray(sourceTypes.producer, [...producers])).orderBy(asc(sourceTypes.id));
}
async function dataOf(typeIds: readonly number[]) {
  if (typeIds.length === 0) return [];
  return db.select().from(sourceData).where(inArray(sourceData.sourceTypeId, [...typeIds])).orderBy(asc(sourceData.id));
}
async function revisionsOf(typeIds: readonly number[]) {
  if (typeIds.length === 0) return [];
  return db.select({
    author: revisions.author, entityType: revisionChanges.entityType, entityId: revisionChanges.entityId,
    entityKey: revisionChanges.entityKey, revisionType: revisionChanges.revisionType, entity: revisionChanges.entity,
  }).from(revisionChanges).innerJoin(revisions, eq(revisions.id, revisionChanges.revisionId))
    .where(inArray(revisionChanges.entityId, [...typeIds])).orderBy(asc(revisionChanges.id))
    .then((rows) => rows.filter((r) => r.entityType === 'sourceType'));
}

const audit = { createdBy: 'system', lastModifiedBy: 'system', createdDate: expect.any(Date), lastModifiedDate: expect.any(Date) };

describe('a catalogue with new, incomplete and existing types', () => {
  const v = vendors();
  let stub: Stub;
  let existingId: number;
  let takenId: number;
  beforeAll(async () => {
    stub = await catalogueStub((_n, res) => json(res, catalogue(v)));
    const [existing] = await db.insert(sourceTypes).values({
      producer: v.existing, model: 'pRMT', catalogVersion: '1.0.0', sourceTypeScope: 'ACTIVE', canRegisterDynamically: true, description: 'Original description.',
    }).returning();
    existingId = existing!.id;
    const [taken] = await db.insert(sourceData).values({ sourceDataType: 'BATTERY', sourceDataName: `${v.phone}_PHONE_1.0.0_BATTERY` }).returning();
    takenId = taken!.id;
  });
  afterAll(async () => { await stub.close(); });

  it('imports the new types with their source data and a revision each, and logs what it skipped', async () => {
    const { handle, lines } = importer(stub.url);
    const result = await handle.done;

    expect(result).toEqual({
      outcome: 'imported', attempts: 1,
      created: [`${v.e4} E4 1.0.0`, `${v.phone} PHONE 1.0.0`, `${v.phq8} PHQ8 v1`],
      skipped: [{ name: 'FITBIT_CHARGE', reason: 'missing version' }, { name: `${v.existing} pRMT 1.0.0`, reason: 'exists' }],
      sourceDataCreated: 4,
      sourceDataSkipped: [{ name: `${v.phone}_PHONE_1.0.0_BATTERY`, reason: 'exists' }],
    });

    const types = await typesOf(Object.values(v));
    expect(types.map(({ id: _id, ...row }) => row)).toEqual([
      { producer: v.existing, model: 'pRMT', catalogVersion: '1.0.0', sourceTypeScope: 'ACTIVE', canRegisterDynamically: true, name: null,
        description: 'Original description.', assessmentType: null, appProvider: null, createdBy: 'system', createdDate: expect.any(Date), lastModifiedBy: null, lastModifiedDate: null },
      { producer: v.e4, model: 'E4', catalogVersion: '1.0.0', sourceTypeScope: 'PASSIVE', canRegisterDynamically: false, name: 'EMPATICA_E4',
        description: 'Empatica E4 wristband.', assessmentType: null, appProvider: 'org.radarcns.empatica.E4ServiceProvider', ...audit },
      { producer: v.phone, model: 'PHONE', catalogVersion: '1.0.0', sourceTypeScope: 'PASSIVE', canRegisterDynamically: false, name: 'ANDROID_PHONE',
        description: 'Android phone sensors.', assessmentType: null, appProvider: 'org.radarbase.passive.phone.PhoneSensorProvider', ...audit },
      { producer: v.phq8, model: 'PHQ8', catalogVersion: 'v1', sourceTypeScope: 'ACTIVE', canRegisterDynamically: false, name: 'PHQ8',
        description: 'Patient Health Questionnaire, 8 items.', assessmentType: 'QUESTIONNAIRE', appProvider: null, ...audit },
    ]);
    const [, e4, phone, phq8] = types as [unknown, typeof types[0], typeof types[0], typeof types[0]];

    const data = await dataOf(types.map((ty) => ty.id));
    expect(data.map(({ id: _id, ...row }) => row)).toEqual([
      { sourceDataType: 'ACCELEROMETER', sourceDataName: `${v.e4}_E4_1.0.0_ACCELEROMETER`, frequency: '32.0', unit: 'G', processingState: 'RAW', dataClass: null,
        keySchema: KEY_SCHEMA, valueSchema: 'org.radarcns.passive.empatica.EmpaticaE4Acceleration', topic: 'android_empatica_e4_acceleration',
        provider: 'org.radarcns.empatica.E4ServiceProvider', enabled: true, sourceTypeId: e4.id, ...audit },
      { sourceDataType: 'BATTERY', sourceDataName: `${v.e4}_E4_1.0.0_BATTERY`, frequency: '0.5', unit: 'PERCENTAGE', processingState: 'RAW', dataClass: null,
        keySchema: KEY_SCHEMA, valueSchema: 'org.radarcns.passive.empatica.EmpaticaE4BatteryLevel', topic: 'android_empatica_e4_battery_level',
        provider: 'org.radarcns.empatica.E4ServiceProvider', enabled: true, sourceTypeId: e4.id, ...audit },
      { sourceDataType: 'ACCELEROMETER', sourceDataName: `${v.phone}_PHONE_1.0.0_ACCELEROMETER`, frequency: null, unit: 'G', processingState: 'RAW', dataClass: null,
        keySchema: KEY_SCHEMA, valueSchema: 'org.radarcns.passive.phone.PhoneAcceleration', topic: 'android_phone_acceleration',
        provider: 'org.radarbase.passive.phone.PhoneSensorProvider', enabled: true, sourceTypeId: phone.id, ...audit },
      { sourceDataType: 'PHQ8', sourceDataName: `${v.phq8}_PHQ8_v1_PHQ8`, frequency: null, unit: null, processingState: null, dataClass: null,
        keySchema: KEY_SCHEMA, valueSchema: 'org.radarcns.active.questionnaire.Questionnaire', topic: 'questionnaire_phq8',
        provider: null, enabled: true, sourceTypeId: phq8.id, ...audit },
    ]);
    // The taken name keeps its owner (none).
    const [taken] = await db.select().from(sourceData).where(eq(sourceData.id, takenId));
    expect(taken).toMatchObject({ sourceDataName: `${v.phone}_PHONE_1.0.0_BATTERY`, sourceTypeId: null });

    const history = await revisionsOf([existingId, e4.id, phone.id, phq8.id]);
    const dataDto = (d: typeof data[0]) => ({
      id: d.id, sourceDataType: d.sourceDataType, sourceDataName: d.sourceDataName, frequency: d.frequency, unit: d.unit,
      processingState: d.processingState, dataClass: null, keySchema: d.keySchema, valueSchema: d.valueSchema, topic: d.topic, provider: d.provider, enabled: true,
    });
    expect(history).toEqual([
      { author: 'system', entityType: 'sourceType', entityId: e4.id, entityKey: `${v.e4} E4 1.0.0`, revisionType: 'ADD', entity: {
        id: e4.id, producer: v.e4, model: 'E4', catalogVersion: '1.0.0', sourceTypeScope: 'PASSIVE', canRegisterDynamically: false,
        name: 'EMPATICA_E4', description: 'Empatica E4 wristband.', appProvider: 'org.radarcns.empatica.E4ServiceProvider',
        sourceData: [dataDto(data[0]!), dataDto(data[1]!)],
      } },
      { author: 'system', entityType: 'sourceType', entityId: phone.id, entityKey: `${v.phone} PHONE 1.0.0`, revisionType: 'ADD', entity: {
        id: phone.id, producer: v.phone, model: 'PHONE', catalogVersion: '1.0.0', sourceTypeScope: 'PASSIVE', canRegisterDynamically: false,
        name: 'ANDROID_PHONE', description: 'Android phone sensors.', appProvider: 'org.radarbase.passive.phone.PhoneSensorProvider',
        sourceData: [dataDto(data[2]!)],
      } },
      { author: 'system', entityType: 'sourceType', entityId: phq8.id, entityKey: `${v.phq8} PHQ8 v1`, revisionType: 'ADD', entity: {
        id: phq8.id, producer: v.phq8, model: 'PHQ8', catalogVersion: 'v1', sourceTypeScope: 'ACTIVE', canRegisterDynamically: false,
        name: 'PHQ8', description: 'Patient Health Questionnaire, 8 items.', assessmentType: 'QUESTIONNAIRE',
        sourceData: [dataDto(data[3]!)],
      } },
    ]);

    expect(lines().filter((l) => l.level >= WARN).map((l) => ({ msg: l.msg, sourceTypes: l.sourceTypes }))).toEqual([
      { msg: 'catalogue entries skipped: cannot be stored', sourceTypes: [{ name: 'FITBIT_CHARGE', reason: 'missing version' }] },
    ]);
    expect(lines().find((l) => l.msg === 'catalogue import done')).toMatchObject({
      created: 3, createdSourceTypes: result.created, sourceDataCreated: 4, skipped: 1, failed: 0,
      existing: [`${v.existing} pRMT 1.0.0`], existingSourceData: [`${v.phone}_PHONE_1.0.0_BATTERY`],
    });
  });

  it('changes nothing when run again', async () => {
    const ids = (await typesOf(Object.values(v))).map((ty) => ty.id);
    const before = { types: await typesOf(Object.values(v)), data: await dataOf(ids), history: await revisionsOf(ids) };

    const { handle } = importer(stub.url);
    const result = await handle.done;

    expect(result).toEqual({
      outcome: 'imported', attempts: 1, created: [], sourceDataCreated: 0, sourceDataSkipped: [],
      skipped: [
        { name: 'FITBIT_CHARGE', reason: 'missing version' },
        { name: `${v.e4} E4 1.0.0`, reason: 'exists' }, { name: `${v.phone} PHONE 1.0.0`, reason: 'exists' },
        { name: `${v.phq8} PHQ8 v1`, reason: 'exists' }, { name: `${v.existing} pRMT 1.0.0`, reason: 'exists' },
      ],
    });
    expect({ types: await typesOf(Object.values(v)), data: await dataOf(ids), history: await revisionsOf(ids) }).toEqual(before);
  });
});

it('creates each type once when several instances import at the same time', async () => {
  const v = vendors();
  // All three get the catalogue at the same moment. The race is real on PostgreSQL; PGlite has one
  // session, which serialises the imports.
  const waiting: ServerResponse[] = [];
  const stub = await catalogueStub((n, res) => {
    waiting.push(res);
    if (n === 2) for (const r of waiting) json(r, catalogue(v));
  });
  try {
    const results = await Promise.all([1, 2, 3].map(() => importer(stub.url).handle.done));

    const created = results.flatMap((r) => r.created).sort();
    expect(created).toEqual([`${v.e4} E4 1.0.0`, `${v.phone} PHONE 1.0.0`, `${v.phq8} PHQ8 v1`, `${v.existing} pRMT 1.0.0`].sort());
    expect(results.map((r) => r.outcome)).toEqual(['imported', 'imported', 'imported']);
    const types = await typesOf(Object.values(v));
    expect(types).toHaveLength(4);
    expect(await dataOf(types.map((ty) => ty.id))).toHaveLength(6);
    expect((await revisionsOf(types.map((ty) => ty.id))).map((r) => r.entityId).sort()).toEqual(types.map((ty) => ty.id).sort());
  } finally {
    await stub.close();
  }
});

it('retries after a 500 and then imports', async () => {
  const v = vendors();
  const stub = await catalogueStub((n, res) => (n === 0 ? json(res, { error: 'Internal Server Error' }, 500) : json(res, catalogue(v))));
  try {
    const { handle, lines } = importer(stub.url, { retryDelaysMs: [20, 20] });
    const result = await handle.done;

    expect(result).toMatchObject({ outcome: 'imported', attempts: 2, created: [`${v.e4} E4 1.0.0`, `${v.phone} PHONE 1.0.0`, `${v.phq8} PHQ8 v1`, `${v.existing} pRMT 1.0.0`] });
    expect(stub.requests()).toBe(2);
    expect(lines().filter((l) => l.level >= WARN && l.msg !== 'catalogue entries skipped: cannot be stored')).toEqual([
      expect.objectContaining({ level: WARN, msg: 'catalogue import failed, retrying', attempt: 1, reason: 'HTTP 500', retryInMs: 20, url: stub.url }),
    ]);
    expect(await typesOf(Object.values(v))).toHaveLength(4);
  } finally {
    await stub.close();
  }
});

it('logs a body that is not the catalogue, retries, and gives up with an error', async () => {
  const bodies = ['<html>not json</html>', '[1, 2]', '{"source-types": []}', '{"passive-source-types": {}}'];
  const stub = await catalogueStub((n, res) => json(res, bodies[n] ?? '{}'));
  try {
    const { handle, lines } = importer(stub.url, { retryDelaysMs: [5, 5, 5] });
    const result = await handle.done;

    expect(result).toEqual({ outcome: 'gave-up', attempts: 4, created: [], skipped: [], sourceDataCreated: 0, sourceDataSkipped: [] });
    expect(lines().filter((l) => l.level >= WARN).map((l) => [l.level, l.msg, l.reason])).toEqual([
      [WARN, 'catalogue import failed, retrying', 'response is not JSON'],
      [WARN, 'catalogue import failed, retrying', 'response is not a JSON object'],
      [WARN, 'catalogue import failed, retrying', 'response has none of passive-source-types, active-source-types, monitor-source-types, connector-source-types'],
      [ERROR, 'catalogue import failed, giving up', 'passive-source-types is not an array'],
    ]);
  } finally {
    await stub.close();
  }
});

it('does not wait for a catalogue server that never answers: the fetch times out, and stop() ends the retries', async () => {
  const stub = await catalogueStub(() => { /* never answers */ });
  try {
    const started = performance.now();
    const { handle, lines } = importer(stub.url, { fetchTimeoutMs: 100, retryDelaysMs: [60_000] });
    expect(performance.now() - started).toBeLessThan(50);

    await until(() => lines().some((l) => l.msg === 'catalogue import failed, retrying'));
    expect(lines().find((l) => l.msg === 'catalogue import failed, retrying')).toMatchObject({ level: WARN, reason: 'no answer within 100 ms', retryInMs: 60_000 });

    // The 60 s retry is pending; stop() cancels it at once.
    handle.stop();
    expect(await handle.done).toMatchObject({ outcome: 'stopped', attempts: 1 });
    expect(stub.requests()).toBe(1);
    expect(performance.now() - started).toBeLessThan(10_000);
  } finally {
    await stub.close();
  }
});

it('stop() aborts a fetch under way', async () => {
  const stub = await catalogueStub(() => { /* never answers */ });
  try {
    const { handle, lines } = importer(stub.url, { fetchTimeoutMs: 60_000, retryDelaysMs: [60_000] });
    await until(() => stub.requests() === 1);
    handle.stop();
    expect(await handle.done).toMatchObject({ outcome: 'stopped', attempts: 1 });
    expect(lines().filter((l) => l.level >= WARN)).toEqual([]);
  } finally {
    await stub.close();
  }
});

it('logs an unreachable server, retries, and gives up', async () => {
  const port = await closedPort();
  const { handle, lines } = importer(`http://127.0.0.1:${port}/source-types`, { retryDelaysMs: [5, 5] });
  expect(await handle.done).toMatchObject({ outcome: 'gave-up', attempts: 3 });
  expect(lines().filter((l) => l.level >= WARN).map((l) => [l.level, l.msg, l.reason])).toEqual([
    [WARN, 'catalogue import failed, retrying', 'fetch failed: ECONNREFUSED'],
    [WARN, 'catalogue import failed, retrying', 'fetch failed: ECONNREFUSED'],
    [ERROR, 'catalogue import failed, giving up', 'fetch failed: ECONNREFUSED'],
  ]);
});

it('sends credentials in the URL as HTTP Basic and keeps them out of the log', async () => {
  const vendor = unique('GARMIN');
  const stub = await catalogueStub((_n, res, req) => {
    if (req.headers.authorization !== `Basic ${Buffer.from('reader:p@ss word').toString('base64')}`) return json(res, { error: 'unauthorized' }, 401);
    json(res, { 'connector-source-types': [{ name: 'GARMIN_CONNECT', vendor, model: 'CONNECT', version: '1.0.0', data: [{ type: 'STEPS', topic: 'connect_garmin_steps' }] }] });
  });
  try {
    const url = new URL(stub.url);
    url.username = 'reader';
    url.password = 'p@ss word';
    const { handle, lines } = importer(url.toString());
    expect(await handle.done).toMatchObject({ outcome: 'imported', created: [`${vendor} CONNECT 1.0.0`], sourceDataCreated: 1 });
    // No `scope`: the list's scope.
    expect(await typesOf([vendor])).toMatchObject([{ sourceTypeScope: 'CONNECTOR', name: 'GARMIN_CONNECT', description: null }]);
    expect(lines().find((l) => l.msg === 'catalogue import started')).toMatchObject({ url: stub.url });
    expect(JSON.stringify(lines())).not.toMatch(/p%40ss|p@ss/);
  } finally {
    await stub.close();
  }
});

it('gives up at once on a URL that is not one', async () => {
  const { handle, lines } = importer('not a url');
  expect(await handle.done).toMatchObject({ outcome: 'gave-up', attempts: 0 });
  expect(lines().map((l) => [l.level, l.msg])).toEqual([[ERROR, 'catalogue import not started: invalid URL']]);
});

it('writes frequencies as the reference does (Java Double.toString)', () => {
  expect([32, 0.5, 0, 1, 250.75, 1e-4, 1.5e7, 1e7, -2].map(javaDoubleString))
    .toEqual(['32.0', '0.5', '0.0', '1.0', '250.75', '1.0E-4', '1.5E7', '1.0E7', '-2.0']);
});
