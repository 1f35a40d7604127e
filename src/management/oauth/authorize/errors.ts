/**
 * Errors of the authorization endpoint. Two kinds (RFC 6749 §4.1.2.1): when the client or the
 * redirect URI cannot be trusted, an error page is shown and nothing redirects
 * (`AuthorizationPageError`); any other error goes back to the client's redirect URI
 * (`AuthorizationRedirect` carrying an OAuth error).
 */
import { oauthEn, type OAuthPageMessage } from '../../i18n/messages/oauth.en.js';
import { OAuthError } from '../errors.js';

/** An error page of the authorization endpoint; `key` names its text in the pages' catalogue (its message is the English one). */
export class AuthorizationPageError extends Error {
  constructor(readonly status: number, readonly key: OAuthPageMessage) {
    super(oauthEn[key]);
    this.name = 'AuthorizationPageError';
  }
}

/** A form posted without the session's CSRF token (or without a session). */
export class CsrfRejected extends AuthorizationPageError {
  constructor() { super(403, 'oauth.csrf'); }
}

export class UnsupportedResponseType extends OAuthError { readonly error = 'unsupported_response_type'; }
export class AccessDenied extends OAuthError { readonly error = 'access_denied'; }

/** An OAuth error to send to the client: `redirect_uri?error=…&error_description=…&state=…`. */
export class AuthorizationRedirect extends Error {
  constructor(readonly redirectUri: string, readonly state: string | null, readonly oauthError: OAuthError) {
    super(oauthError.message);
    this.name = 'AuthorizationRedirect';
  }

  get location(): string {
    return redirectTo(this.redirectUri, { error: this.oauthError.error, error_description: this.oauthError.message, state: this.state });
  }
}

/** `uri` with the parameters added to its query (kept parameters stay; custom schemes work). */
export function redirectTo(uri: string, params: Record<string, string | null>): string {
  const url = new URL(uri);
  for (const [k, v] of Object.entries(params)) if (v !== null) url.searchParams.set(k, v);
  return url.toString();
}
