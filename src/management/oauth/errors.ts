/**
 * The OAuth error model (modelled on node-oidc-provider `lib/helpers/errors.js`): one class per
 * code of RFC 6749 §5.2 / §4.1.2.1 and RFC 6750 §3.1, plus the reference's `unauthorized`
 * (managementportal.md §3.2, user not activated or not found). A class fixes the `error` code and
 * its status; the thrower supplies the description. `challenge` is the `WWW-Authenticate` scheme
 * a 401 carries: Basic for client authentication, Bearer for tokens.
 */
export abstract class OAuthError extends Error {
  abstract readonly error: string;
  readonly status: number = 400;
  readonly challenge?: 'Basic' | 'Bearer';
  /** Extra body members (the reference's `scope` on invalid_scope). */
  readonly extra?: Record<string, string>;

  constructor(description: string, extra?: Record<string, string>) {
    super(description);
    this.name = new.target.name;
    if (extra) this.extra = extra;
  }
}

export class InvalidRequest extends OAuthError { readonly error = 'invalid_request'; }
export class InvalidClient extends OAuthError {
  readonly error = 'invalid_client';
  override readonly status = 401;
  override readonly challenge = 'Basic' as const;
}
export class InvalidGrant extends OAuthError { readonly error = 'invalid_grant'; }
export class UnauthorizedClient extends OAuthError { readonly error = 'unauthorized_client'; }
export class UnsupportedGrantType extends OAuthError { readonly error = 'unsupported_grant_type'; }
export class InvalidScope extends OAuthError { readonly error = 'invalid_scope'; }
export class InvalidToken extends OAuthError {
  readonly error = 'invalid_token';
  override readonly status = 401;
  override readonly challenge = 'Bearer' as const;
}
/** The reference's 401 for a user who may not get tokens (not activated, deleted). */
export class Unauthorized extends OAuthError {
  readonly error = 'unauthorized';
  override readonly status = 401;
  override readonly challenge = 'Bearer' as const;
}
export class MethodNotAllowed extends OAuthError {
  readonly error = 'method_not_allowed';
  override readonly status = 405;
}
