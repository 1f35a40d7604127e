/**
 * Issue 33 item 1: the `local` storage (a folder, for a single container without object
 * storage) writes the file under its object key; without RADAR_FILE_UPLOAD_ENABLED the route does
 * not exist (404), as the reference's `@ConditionalOnProperty` controller.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { multipartBody, multipartHeaders } from '../../helpers/multipart.js';
import { errorBody, expectStatus, unique } from '../../fixtures/appserver.js';

let dir: string;
let local: TestApp;
let disabled: TestApp;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'uploads-'));
  [local, disabled] = await Promise.all([
    buildTestApp({ RADAR_FILE_UPLOAD_ENABLED: 'true', RADAR_STORAGE_TYPE: 'local', RADAR_STORAGE_LOCAL_PATH: join(dir, 'files'), RADAR_STORAGE_S3_PATH_COLLECT_PER_DAY: 'false' }),
    buildTestApp(),
  ]);
}, 60_000);
afterAll(async () => {
  await Promise.all([local?.close(), disabled?.close()]);
  rmSync(dir, { recursive: true, force: true });
});

const post = (app: TestApp, path: string, content: string) => app.app.inject({
  method: 'POST', url: path, headers: multipartHeaders, payload: multipartBody([{ name: 'file', filename: 'notes.CSV', content }]),
});

describe('RADAR_STORAGE_TYPE=local', () => {
  it('writes the file under its key in RADAR_STORAGE_LOCAL_PATH (no prefix, no day folder) and nothing else', async () => {
    const topic = unique('topic');
    const res = await post(local, `/projects/radar/users/sub-1/files/topics/${topic}/upload`, 'a,b\n1,2\n');
    expect(res.statusCode).toBe(201);
    const key = res.headers.location as string;
    expect(key).toMatch(new RegExp(`^radar/sub-1/${topic}/\\d{14}_[0-9a-f-]{36}\\.csv$`));
    expect(readFileSync(join(dir, 'files', key), 'utf8')).toBe('a,b\n1,2\n');
    expect(readdirSync(join(dir, 'files', 'radar', 'sub-1', topic))).toEqual([key.split('/').at(-1)]);
  });
});

describe('RADAR_FILE_UPLOAD_ENABLED unset (false)', () => {
  it('has no upload route: 404', async () => {
    const path = '/projects/radar/users/sub-1/files/topics/t/upload';
    expect(expectStatus(await post(disabled, path, 'x'), 404)).toEqual(errorBody(404, `No endpoint POST ${path}`, path));
  });
});
