/** Schemas of the authorization endpoint's pages and forms. */
import { Type } from 'typebox';

const param = (description: string) => Type.Optional(Type.String({ description }));

export const AuthorizationQuerySchema = Type.Object({
  client_id: param('The client asking for authorization'),
  response_type: param('`code` (the only response type)'),
  redirect_uri: param('One of the client\'s registered redirect URIs, exactly; may be omitted when it has only one'),
  state: param('Opaque value returned with the code'),
  scope: param('Space-separated scopes (a subset of the client\'s; default all of them)'),
  code_challenge: param('PKCE challenge (RFC 7636): BASE64URL(SHA256(code_verifier))'),
  code_challenge_method: param('`S256` (the only method)'),
});

export const SignInForm = Type.Object({
  username: Type.Optional(Type.String()),
  password: Type.Optional(Type.String()),
  _csrf: Type.Optional(Type.String({ description: 'The CSRF token of the sign-in page' })),
  request_id: Type.Optional(Type.String({ description: 'The id of the authorization request the page shows' })),
}, { description: 'application/x-www-form-urlencoded sign-in form' });

/** The prefix of the consent form's per-scope fields (`scope.SUBJECT.READ=true`), as the reference's. */
export const SCOPE_FIELD_PREFIX = 'scope.';

export const ConsentForm = Type.Object({
  user_oauth_approval: Type.Optional(Type.String({ description: '`true` for the Approve button (the scopes ticked count); anything else denies every scope' })),
  _csrf: Type.Optional(Type.String({ description: 'The CSRF token of the consent page' })),
  request_id: Type.Optional(Type.String({ description: 'The id of the authorization request the page shows' })),
}, {
  description: 'application/x-www-form-urlencoded consent form, with one `scope.<name>` field per ticked scope',
  patternProperties: {
    '^scope\\.': Type.String({ description: '`true` approves the scope `<name>` (the reference also takes a value starting with `approve`); a requested scope without its field is denied; fields for scopes not requested are ignored' }),
  },
});

/** A response of the sign-in and consent pages: documented as `text/html`, not JSON. */
export const HtmlPage = { description: 'HTML page', content: { 'text/html': { schema: Type.String() } } };
export const Redirect = Type.Null({ description: 'Redirect (Location header): to the client with `code` and `state`, or with `error`' });
