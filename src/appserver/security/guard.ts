/**
 * The app server's request security (issue 21, appserver.md §7, clients.md §2.2): who calls
 * (`authenticate`), whether the route's permission reaches the path's project and subject (403,
 * before any lookup), and what the routes need for their own checks (`Access`: list scopes, the
 * 401 checks on bodies and found entities). CORS is not answered here but by the platform
 * (platform/http-security.ts), before this guard, so preflights need no token.
 *
 * Sets the domain's one request decorator, `request.appAuth`: null while security is off (and
 * before the hook ran), else the token and the route's permission.
 *
 * Answers as radar-spring-auth 1.2.1: no token → 401 "The token is missing…"; a token that does
 * not verify (or whose user was deactivated or deleted) → 401 "Cannot verify token…"; the route's
 * permission denied → 403; each 401 with `WWW-Authenticate: Bearer` (errors.ts).
 */
import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import { createTtlCache } from '../../platform/ttl-cache.js';
import { Forbidden, Unauthorized } from '../errors.js';
import type { KeySource } from './key-sources.js';
import { EVERYTHING, hasPermission, readScope, toRadarToken, type AppPermission, type RadarToken, type ReadScope } from './oracle.js';
import { ROUTE_PERMISSIONS } from './permissions.js';
import { TokenRejected, type TokenVerifier } from './verifier.js';

export interface AppAuth {
  token: RadarToken;
  /** The route's permission (permissions.ts). */
  permission: AppPermission;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The app server's principal: null while security is off. */
    appAuth: AppAuth | null;
  }
}

export const MISSING_TOKEN = 'The token is missing from the request. No bearer token provided in the request';
export const INVALID_TOKEN = 'Cannot verify token. It may have been rendered invalid.';
export const NOT_ENOUGH_PRIVILEGES = 'The provided token does not have enough privileges.';
export const noProjectPermission = (projectId: string) => `The token does not have permission for the project ${projectId}`;

/** The bearer token of `Authorization: Bearer …` (any case), else of the cookie `authorizationBearer`. */
export function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  const match = header === undefined ? null : /^bearer\s+(\S+)\s*$/i.exec(header);
  if (match) return match[1];
  const cookies = request.headers.cookie;
  if (!cookies) return undefined;
  for (const part of cookies.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === 'authorizationBearer') {
      const value = part.slice(eq + 1).trim();
      try {
        return decodeURIComponent(value) || undefined;
      } catch {
        return value || undefined;
      }
    }
  }
  return undefined;
}

export interface AuthenticatorDeps {
  verifier: TokenVerifier;
  /** This process's own key source: its tokens stop working once their user is deactivated or deleted. */
  local: KeySource;
  userActive(login: string): Promise<boolean>;
  /** Epoch milliseconds. */
  now: () => number;
}

/** How long a user's status is believed (issue 21 item 4: at most 60 s). */
export const USER_STATUS_TTL_MS = 60_000;

export function createAuthenticator(deps: AuthenticatorDeps) {
  const status = createTtlCache<string, { active: boolean }>({ max: 10_000, ttl: USER_STATUS_TTL_MS, now: deps.now });
  /** Look-ups under way, shared by concurrent requests of one user (not a cache). */
  const pending = new Map<string, Promise<boolean>>();

  function active(login: string): Promise<boolean> {
    const hit = status.get(login);
    if (hit) return Promise.resolve(hit.active);
    let lookup = pending.get(login);
    if (!lookup) {
      lookup = deps.userActive(login).then((isActive) => {
        status.set(login, { active: isActive });
        return isActive;
      }).finally(() => pending.delete(login));
      pending.set(login, lookup);
    }
    return lookup;
  }

  return {
    /** The caller's token; throws `Unauthorized`. */
    async authenticate(request: FastifyRequest): Promise<RadarToken> {
      const raw = bearerToken(request);
      if (raw === undefined) throw new Unauthorized(MISSING_TOKEN);
      let verified;
      try {
        verified = await deps.verifier.verify(raw);
      } catch (err) {
        if (err instanceof TokenRejected) throw new Unauthorized(INVALID_TOKEN);
        throw err;
      }
      const token = toRadarToken(verified.claims);
      if (verified.source === deps.local && !token.clientCredentials) {
        const login = token.userName ?? token.subject;
        if (login !== undefined && !(await active(login))) throw new Unauthorized(INVALID_TOKEN);
      }
      return token;
    },
  };
}

export type Authenticator = ReturnType<typeof createAuthenticator>;

/** What the routes use for the checks that need a body or a found entity. */
export interface Access {
  /** The items a list may show: everything while security is off. */
  scope(request: FastifyRequest): ReadScope;
  /**
   * 401 with `message` unless the route's permission reaches `project` and `subject` (default:
   * the token's `sub`, as radar-spring-auth fills it). Nothing while security is off.
   */
  require(request: FastifyRequest, entity: { project: string; subject?: string }, message: string): void;
}

export const access: Access = {
  scope: (request) => (request.appAuth ? readScope(request.appAuth.token, request.appAuth.permission) : EVERYTHING),
  require(request, entity, message) {
    const auth = request.appAuth;
    if (!auth) return;
    if (!hasPermission(auth.token, auth.permission, { project: entity.project, subject: entity.subject ?? auth.token.subject })) {
      throw new Unauthorized(message);
    }
  },
};

/**
 * Guards every route the app server registers from now on with its line of `ROUTE_PERMISSIONS`
 * (a route without one stops the start). `authenticator` undefined: security
 * is off, every route is open.
 */
export function installGuard(app: FastifyInstance, options: { contextPath: string; authenticator?: Authenticator }): void {
  const { contextPath, authenticator } = options;
  app.decorateRequest('appAuth', null);

  app.addHook('onRoute', (route: RouteOptions) => {
    const methods = [route.method].flat().map((m) => (m === 'HEAD' ? 'GET' : m));
    if (methods.includes('OPTIONS')) return;
    const path = route.url.slice(contextPath.length) || '/';
    const permissions = [...new Set(methods)].map((method) => {
      const permission = ROUTE_PERMISSIONS[`${method} ${path}`];
      if (!permission) throw new Error(`app server route ${method} ${path} has no permission in src/appserver/security/permissions.ts`);
      return permission;
    });
    const permission = permissions[0]!;
    // Every guarded route may answer 401 and 403 (documented in the OpenAPI document).
    const schema = (route.schema ??= {}) as { response?: Record<string, unknown> };
    if (schema.response) {
      schema.response[401] ??= { $ref: 'ErrorDetails#' };
      schema.response[403] ??= { $ref: 'ErrorDetails#' };
    }
    if (!authenticator) return;
    const guard = async (request: FastifyRequest) => {
      const token = await authenticator.authenticate(request);
      const params = request.params as Record<string, string | undefined>;
      // radar-spring-auth 1.2.1: ids missing from the path come from the token.
      const project = params.projectId ?? token.roles[0]?.referent ?? null;
      const subject = params.subjectId ?? token.subject;
      if (!hasPermission(token, permission, { project, subject })) throw new Forbidden();
      request.appAuth = { token, permission };
    };
    route.onRequest = [guard, ...[route.onRequest ?? []].flat()];
  });
  // Reference deviation: its `@CrossOrigin` (any origin) is not kept; CORS is the platform's
  // (`CORS_ALLOWED_ORIGINS`, platform/http-security.ts), off unless origins are named.
}
