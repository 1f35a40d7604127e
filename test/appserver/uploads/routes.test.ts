/**
 * Issue 33 item 1: the file upload over the real S3 protocol (s3rver on loopback, test/helpers/s3.ts):
 * the object under the key with exactly the bytes sent, the key's format, the size limit (413,
 * nothing stored), an empty file (417), no file part (400), who may upload (401/403), a missing
 * bucket and a storage server that dies mid-upload (503, nothing stored).
 */
import { randomBytes } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { appserverTokens, securedEnv } from '../../helpers/appserver-auth.js';
import { startTestS3, type TestS3 } from '../../helpers/s3.js';
import { CLOSE, multipartBody, multipartHeaders, partHead, type Part } from '../../helpers/multipart.js';
import { aProject as aManagementProject } from '../../fixtures/management.js';
import { errorBody, expectStatus, unique } from '../../fixtures/appserver.js';
import { organizations } from '../../../src/management/schema.js';
import { PART_SIZE } from '../../../src/appserver/uploads/storage.js';

const MiB = 1024 * 1024;
const BUCKET = 'radar';
const PREFIX = 'uploads';

let s3: TestS3;
let t: TestApp;
let noBucket: TestApp;
let badKey: TestApp;
let A: string;
let B: string;
let sub1: string;
let sub2: string;
const tok: Record<string, string> = {};

beforeAll(async () => {
  s3 = await startTestS3();
  await s3.createBucket(BUCKET);
  const storage = {
    RADAR_FILE_UPLOAD_ENABLED: 'true', RADAR_STORAGE_TYPE: 's3', RADAR_STORAGE_S3_URL: s3.url,
    RADAR_STORAGE_S3_ACCESS_KEY: 'S3RVER', RADAR_STORAGE_S3_SECRET_KEY: 'S3RVER',
  };
  [t, noBucket, badKey] = await Promise.all([
    buildTestApp(securedEnv({ ...storage, RADAR_STORAGE_S3_PATH_PREFIX: PREFIX, RADAR_FILE_UPLOAD_MAX_SIZE: '7MB' })),
    buildTestApp({ ...storage, RADAR_STORAGE_S3_BUCKET_NAME: 'no-such-bucket' }),
    buildTestApp({ ...storage, RADAR_STORAGE_S3_PATH_PREFIX: 'bad-key', RADAR_STORAGE_S3_ACCESS_KEY: 'NOT-A-KEY' }),
  ]);
  const db = t.app.db.db;
  const tokens = appserverTokens(t.app);
  A = unique('projA');
  B = unique('projB');
  const [main] = await db.select().from(organizations).where(eq(organizations.name, 'main'));
  const mpA = await aManagementProject(db, A, main!.id);
  await aManagementProject(db, B);
  const p1 = await tokens.participant(mpA);
  const p2 = await tokens.participant(mpA);
  sub1 = p1.login;
  sub2 = p2.login;
  tok.part = p1.access;
  tok.otherPart = p2.access;
  tok.admin = (await tokens.user('ROLE_PROJECT_ADMIN', { project: A })).access;
  tok.otherAdmin = (await tokens.user('ROLE_PROJECT_ADMIN', { project: B })).access;
  tok.analyst = (await tokens.user('ROLE_PROJECT_ANALYST', { project: A })).access;
}, 60_000);
afterAll(async () => {
  await Promise.all([t?.close(), noBucket?.close(), badKey?.close()]);
  await s3?.close();
});

const uploadPath = (topic: string, project = A, subject = sub1) => `/projects/${project}/users/${subject}/files/topics/${topic}/upload`;
const upload = (app: TestApp, path: string, parts: Part[], token: string | null = tok.part!) => app.app.inject({
  method: 'POST', url: path,
  headers: { ...multipartHeaders, ...(token ? { authorization: `Bearer ${token}` } : {}) },
  payload: multipartBody(parts),
});
const aFile = (content: Buffer | string, filename = 'photo.JPG'): Part => ({ name: 'file', filename, content });
/** `yyyyMMdd` and `yyyyMMddHHmmss` of now, in UTC. */
const utc = (date: Date) => date.toISOString().replace(/[-:T]/g, '').slice(0, 14);

describe('POST …/files/topics/{topicId}/upload', () => {
  it('stores the file under the reference key and answers 201 with it in Location, no body', async () => {
    const topic = unique('questionnaire_photo');
    const content = randomBytes(6 * MiB + 123); // more than one 5 MiB part
    const before = utc(new Date());
    const res = await upload(t, uploadPath(topic), [{ name: 'note', content: 'ignored' }, aFile(content, 'IMG_0001.final.JPEG')]);
    const after = utc(new Date());
    expect(res.statusCode).toBe(201);
    expect(res.body).toBe('');
    const key = res.headers.location as string;
    const match = new RegExp(`^${PREFIX}/${A}/${sub1}/${topic}/(\\d{8})/(\\d{14})_([0-9a-f-]{36})\\.jpeg$`).exec(key);
    expect(match, key).not.toBeNull();
    const [, day, stamp] = match!;
    expect(stamp! >= before && stamp! <= after).toBe(true);
    expect(day).toBe(stamp!.slice(0, 8));
    expect(await s3.keys(BUCKET, `${PREFIX}/${A}/${sub1}/${topic}/`)).toEqual([key]);
    expect((await s3.read(BUCKET, key)).equals(content)).toBe(true);
  });

  it('stores a small file in one piece, a name without extension as none', async () => {
    const topic = unique('topic');
    const res = await upload(t, uploadPath(topic), [aFile('hello', 'README')], tok.admin);
    expect(res.statusCode).toBe(201);
    const key = res.headers.location as string;
    expect(key).toMatch(new RegExp(`^${PREFIX}/${A}/${sub1}/${topic}/\\d{8}/\\d{14}_[0-9a-f-]{36}$`));
    expect((await s3.read(BUCKET, key)).toString()).toBe('hello');
  });

  it('stores exactly the bytes of a file just below, at and just above the 5 MiB part size', async () => {
    // Up to one part the file goes up in one PutObject, above it in a multipart upload.
    for (const size of [PART_SIZE - 1, PART_SIZE, PART_SIZE + 1]) {
      const topic = unique('topic');
      const content = randomBytes(size);
      const res = await upload(t, uploadPath(topic), [aFile(content, 'data.bin')]);
      expect(res.statusCode, `${size}: ${res.body}`).toBe(201);
      const key = res.headers.location as string;
      expect(await s3.keys(BUCKET, `${PREFIX}/${A}/${sub1}/${topic}/`)).toEqual([key]);
      const stored = await s3.read(BUCKET, key);
      expect(stored.length, String(size)).toBe(size);
      expect(stored.equals(content), String(size)).toBe(true);
    }
  });

  it('gives two uploads of one name two keys', async () => {
    const topic = unique('topic');
    const first = await upload(t, uploadPath(topic), [aFile('one', 'same.txt')]);
    const second = await upload(t, uploadPath(topic), [aFile('two', 'same.txt')]);
    expect(first.headers.location).not.toBe(second.headers.location);
    expect(await s3.keys(BUCKET, `${PREFIX}/${A}/${sub1}/${topic}/`)).toEqual([first.headers.location, second.headers.location].sort());
  });

  it('answers a file over RADAR_FILE_UPLOAD_MAX_SIZE (7MB) with 413 and stores nothing', async () => {
    const topic = unique('topic');
    const path = uploadPath(topic);
    const res = await upload(t, path, [aFile(randomBytes(7 * MiB + 1))]);
    expect(expectStatus(res, 413)).toEqual(errorBody(413, 'The file is larger than the upload limit of 7340032 bytes', path));
    expect(await s3.keys(BUCKET, `${PREFIX}/${A}/${sub1}/${topic}/`)).toEqual([]);
  });

  it('takes a file of exactly the limit', async () => {
    const topic = unique('topic');
    const res = await upload(t, uploadPath(topic), [aFile(randomBytes(7 * MiB))]);
    expect(res.statusCode).toBe(201);
  });

  it('answers an empty file with 417 and the reference\'s message, storing nothing', async () => {
    const topic = unique('topic');
    const path = uploadPath(topic);
    const res = await upload(t, path, [aFile('')]);
    expect(expectStatus(res, 417)).toEqual(errorBody(417, 'File, project, subject and topic IDs must not be empty', path));
    expect(await s3.keys(BUCKET, `${PREFIX}/${A}/${sub1}/${topic}/`)).toEqual([]);
  });

  it('answers a body without a `file` part with 400', async () => {
    const path = uploadPath('topic');
    const res = await upload(t, path, [{ name: 'other', filename: 'x.txt', content: 'x' }, { name: 'file', content: 'a field, not a file' }]);
    expect(expectStatus(res, 400)).toEqual(errorBody(400, "Required part 'file' is not present.", path));
  });

  it('answers a JSON body with 415', async () => {
    const path = uploadPath('topic');
    const res = await t.app.inject({ method: 'POST', url: path, headers: { authorization: `Bearer ${tok.part}` }, payload: { file: 'x' } });
    expect(expectStatus(res, 415)).toEqual(errorBody(415, 'Unsupported media type', path));
  });

  it('answers a cut-off multipart body with 400', async () => {
    const path = uploadPath('topic');
    const res = await t.app.inject({
      method: 'POST', url: path, headers: { ...multipartHeaders, authorization: `Bearer ${tok.part}` },
      payload: Buffer.concat([partHead({ name: 'file', filename: 'a.txt' }), Buffer.from('no closing boundary')]),
    });
    expect(expectStatus(res, 400)).toEqual(errorBody(400, expect.stringMatching(/^Malformed multipart body: /), path));
  });

  it('refuses a topic id that is not one part of a key with 400', async () => {
    // (`%2E%2E` and `.` never get here: URL parsing resolves them into another path, a 404.)
    for (const topic of ['a%2Fb', 'a%5Cb', 'a%0Ab']) {
      const res = await upload(t, uploadPath(topic), [aFile('x')]);
      expect(res.statusCode, `${topic}: ${res.body}`).toBe(400);
    }
  });

  it('needs a token (401) with MEASUREMENT.CREATE on the path\'s subject (403)', async () => {
    const topic = unique('topic');
    const path = uploadPath(topic);
    const none = await upload(t, path, [aFile('x')], null);
    expect(expectStatus(none, 401)).toEqual(errorBody(401, 'The token is missing from the request. No bearer token provided in the request', path));
    expect(none.headers['www-authenticate']).toBe('Bearer');
    for (const who of ['otherPart', 'otherAdmin', 'analyst']) {
      const res = await upload(t, path, [aFile('x')], tok[who]);
      expect(expectStatus(res, 403), who).toEqual(errorBody(403, 'The requested resource is forbidden.', path));
    }
    expect(expectStatus(await upload(t, uploadPath(topic, A, sub2), [aFile('x')], tok.part), 403)).toEqual(errorBody(403, 'The requested resource is forbidden.', uploadPath(topic, A, sub2)));
    expect(await s3.keys(BUCKET, `${PREFIX}/${A}/`).then((keys) => keys.filter((k) => k.includes(`/${topic}/`)))).toEqual([]);
  });

  it('answers 503 naming the bucket when it does not exist', async () => {
    const path = `/projects/p/users/s/files/topics/t/upload`;
    const res = await upload(noBucket, path, [aFile('x')], null);
    expect(expectStatus(res, 503)).toEqual(errorBody(503, "S3 bucket 'no-such-bucket' does not exist", path));
  });

  it('answers 503 and stores nothing when the storage refuses the access key', async () => {
    const path = `/projects/p/users/s/files/topics/t/upload`;
    for (const content of [Buffer.from('small'), randomBytes(PART_SIZE + 1)]) {
      const res = await upload(badKey, path, [aFile(content)], null);
      expect(expectStatus(res, 503), String(content.length)).toEqual(errorBody(503, 'The file storage is unavailable, try again later', path));
    }
    expect(await s3.keys(BUCKET, 'bad-key/')).toEqual([]);
  });

  it('answers 503 and leaves no object when the storage server dies mid-upload', async () => {
    const topic = unique('topic');
    const path = uploadPath(topic);
    const body = new PassThrough();
    const answer = t.app.inject({ method: 'POST', url: path, headers: { ...multipartHeaders, authorization: `Bearer ${tok.part}` }, payload: body });
    // The first 5 MiB part goes out as soon as it is complete: the server dies on it.
    const died = s3.cutAt('partNumber=');
    body.write(partHead({ name: 'file', filename: 'big.bin' }));
    body.write(randomBytes(6 * MiB));
    await died;
    body.end(Buffer.concat([randomBytes(MiB), CLOSE]));
    const res = await answer;
    s3.restore();
    expect(expectStatus(res, 503)).toEqual(errorBody(503, 'The file storage is unavailable, try again later', path));
    expect(await s3.keys(BUCKET, `${PREFIX}/${A}/${sub1}/${topic}/`)).toEqual([]);
    // And the storage back, uploads work again.
    expect((await upload(t, path, [aFile('back')])).statusCode).toBe(201);
  });
});
