/**
 * User info in a URL setting (`http://user:pass@host`): fetch refuses such a URL, and a log line
 * that names the URL would hand out the password. So the user info is taken off the URL and sent
 * as HTTP Basic, as Spring's HTTP clients do with a URL's user info, and logs name the URL without it.
 */

/** A URL without its user info, and the user info it had (percent-decoded). */
export interface SplitUrl {
  url: string;
  username: string | undefined;
  password: string | undefined;
}

/** @throws TypeError when `raw` is not a URL. */
export function splitUserInfo(raw: string): SplitUrl {
  const url = new URL(raw);
  if (url.username === '' && url.password === '') return { url: raw, username: undefined, password: undefined };
  const username = decodeURIComponent(url.username);
  const password = url.password === '' ? undefined : decodeURIComponent(url.password);
  url.username = '';
  url.password = '';
  // `new URL` adds a slash to a bare origin; the settings are stored without a trailing one.
  const bare = raw.replace(/\/+$/, '') !== raw ? url.href : url.href.replace(/\/$/, '');
  return { url: bare, username, password };
}

/** `Authorization: Basic …` for a user and password (an absent password is empty). */
export function basicAuthorization(username: string, password: string | undefined): string {
  return `Basic ${Buffer.from(`${username}:${password ?? ''}`).toString('base64')}`;
}

/** The URL for a log line: without user info; an unparseable one is not quoted at all. */
export function urlForLog(raw: string): string {
  try {
    return splitUserInfo(raw).url;
  } catch {
    return '<unparseable url>';
  }
}
