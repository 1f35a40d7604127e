/**
 * A cookie-keeping client of the admin UI's pages over `app.inject`, for tests where a browser
 * adds nothing (status codes, headers, redirects, CSRF). Forms are posted urlencoded, as browsers do.
 */
import type { FastifyInstance } from 'fastify';

export interface PageResponse { status: number; headers: Record<string, string | string[] | number | undefined>; body: string; location: string | undefined }

/** The value of the first hidden `_csrf` field of a page. */
export const csrfOf = (html: string): string => /name="_csrf" value="([^"]*)"/.exec(html)?.[1] ?? '';

export function uiClient(app: FastifyInstance, base = '/managementportal', headers: Record<string, string> = {}) {
  const jar = new Map<string, string>();
  const setCookies: string[] = [];

  function remember(res: { headers: Record<string, unknown> }) {
    const raw = res.headers['set-cookie'];
    for (const line of raw === undefined ? [] : Array.isArray(raw) ? raw as string[] : [raw as string]) {
      setCookies.push(line);
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq);
      const value = pair!.slice(eq + 1);
      if (value === '' || /max-age=0|expires=thu, 01 jan 1970/i.test(line)) jar.delete(name); else jar.set(name, value);
    }
  }
  const cookieHeader = () => [...jar].map(([k, v]) => `${k}=${v}`).join('; ');

  async function request(method: 'GET' | 'POST', path: string, form?: Record<string, string>, extra: Record<string, string> = {}): Promise<PageResponse> {
    const res = await app.inject({
      method, url: path.startsWith('/') && !path.startsWith(base) ? `${base}${path}` : path,
      headers: {
        ...headers, ...extra,
        ...(jar.size ? { cookie: cookieHeader() } : {}),
        ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      ...(form ? { payload: new URLSearchParams(form).toString() } : {}),
    });
    remember(res);
    return { status: res.statusCode, headers: res.headers, body: res.body, location: res.headers.location as string | undefined };
  }

  return {
    jar,
    /** Every Set-Cookie header seen, in order. */
    setCookies,
    get: (path: string, extra?: Record<string, string>) => request('GET', path, undefined, extra),
    post: (path: string, form: Record<string, string>, extra?: Record<string, string>) => request('POST', path, form, extra),
    /** GET `page`, then post `form` to `action` with that page's CSRF token. */
    async submit(page: string, action: string, form: Record<string, string>): Promise<PageResponse> {
      const shown = await request('GET', page);
      return request('POST', action, { _csrf: csrfOf(shown.body), ...form });
    },
    /** Signs in at `/login`; returns the POST's response (303 on success). */
    signIn(username = 'admin', password = 'admin', next?: string) {
      return this.submit(next ? `/login?next=${encodeURIComponent(next)}` : '/login', '/login', { username, password, ...(next ? { next } : {}) });
    },
  };
}
