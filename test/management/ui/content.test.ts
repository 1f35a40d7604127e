/**
 * The admin UI's logos and static content (issue 19 item 6): the bundled logos at
 * `…/content/images/`, replaced by a file in MANAGEMENTPORTAL_UI_LOGO_DIR without a restart, and
 * back to the bundled one when that file goes. No other name reaches the file system.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';

const logoDir = mkdtempSync(join(tmpdir(), 'logos-'));
let t: TestApp;
beforeAll(async () => { t = await buildTestApp({ MANAGEMENTPORTAL_UI_LOGO_DIR: logoDir }); });
afterAll(async () => { await t?.close(); rmSync(logoDir, { recursive: true, force: true }); });

const get = (path: string) => t.app.inject({ url: `/managementportal${path}` });
const size = (body: Buffer) => { const png = PNG.sync.read(body); return [png.width, png.height]; };

describe('logos', () => {
  it('serves the bundled logos (70×45 and 350×350) to anyone', async () => {
    const navbar = await get('/content/images/navbar-logo.png');
    expect(navbar.statusCode).toBe(200);
    expect(navbar.headers['content-type']).toBe('image/png');
    expect(size(navbar.rawPayload)).toEqual([70, 45]);
    expect(size((await get('/content/images/home-page-logo.png')).rawPayload)).toEqual([350, 350]);
  });

  it('serves a logo of MANAGEMENTPORTAL_UI_LOGO_DIR instead, without a restart, and falls back when it goes', async () => {
    const mine = new PNG({ width: 10, height: 7 });
    writeFileSync(join(logoDir, 'navbar-logo.png'), PNG.sync.write(mine));
    expect(size((await get('/content/images/navbar-logo.png')).rawPayload)).toEqual([10, 7]);
    // The other logo is not in the folder: the bundled one.
    expect(size((await get('/content/images/home-page-logo.png')).rawPayload)).toEqual([350, 350]);
    rmSync(join(logoDir, 'navbar-logo.png'));
    expect(size((await get('/content/images/navbar-logo.png')).rawPayload)).toEqual([70, 45]);
  });

  it('serves nothing but the known names', async () => {
    writeFileSync(join(logoDir, 'secret.txt'), 'secret');
    for (const path of ['/content/images/secret.txt', '/content/images/..%2f..%2fpackage.json', '/content/..%2fpackage.json', '/content/images/%2e%2e%2fui.css']) {
      const res = await get(path);
      expect(res.statusCode, path).toBe(404);
      expect(res.body).not.toContain('secret');
    }
  });

  it('serves the stylesheet and the script', async () => {
    const css = await get('/content/ui.css');
    expect(css.statusCode).toBe(200);
    expect(css.headers['content-type']).toMatch(/^text\/css/);
    expect(css.body).toBe(readFileSync(new URL('../../../public/content/ui.css', import.meta.url), 'utf8'));
    expect((await get('/content/ui.js')).headers['content-type']).toMatch(/^text\/javascript/);
  });
});
