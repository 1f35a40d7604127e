/**
 * The app's route table as Fastify registers it, for the tests that hold a list against it: the
 * OpenAPI document (test/platform/openapi.test.ts), the fuzzer (test/fuzz/) and the permission
 * matrix (test/security/permission-matrix.test.ts). Pass `onRoute` to `buildTestApp`.
 */
import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify';

export interface RouteTable {
  /** For `BuildOptions.onRoute`: records every route as it is added. */
  onRoute(route: RouteOptions): void;
  /** Every route as `METHOD /url` (`GET /managementportal/api/projects/:projectName`), HEAD and OPTIONS included. */
  readonly routes: string[];
  /** With `countRequests`: requests each route answered, by its `METHOD /url`, 404s of the router not included. */
  readonly answered: Map<string, number>;
}

/**
 * A recorder of the route table. `countRequests` adds a route-level `onResponse` hook to every
 * route that counts the requests it answered (whatever the status: a hook's 401 and a schema's 400
 * count too, a URL that matches no route counts nowhere).
 */
export function routeTable(options: { countRequests?: boolean } = {}): RouteTable {
  const routes: string[] = [];
  const answered = new Map<string, number>();
  const count = async (request: FastifyRequest, _reply: FastifyReply) => {
    const key = `${request.method} ${request.routeOptions.url}`;
    answered.set(key, (answered.get(key) ?? 0) + 1);
  };
  return {
    routes,
    answered,
    onRoute(route) {
      for (const method of [route.method].flat()) routes.push(`${method} ${route.url}`);
      if (options.countRequests) route.onResponse = [...[route.onResponse ?? []].flat(), count];
    },
  };
}

/** A route's path as the OpenAPI document writes it (what @fastify/swagger does): `:name` → `{name}`, `*` → `{*}`. */
export const documentPath = (url: string) => url.replace(/:(\w+)/g, '{$1}').replace(/\*/g, '{*}');

/** `METHOD /url` → `METHOD /path` in the document's form. */
export const documentKey = (route: string) => { const [method, url] = route.split(' '); return `${method} ${documentPath(url!)}`; };

/** The document's operations as `METHOD /path`. */
export const documentOperations = (doc: { paths: Record<string, Record<string, unknown>> }) =>
  Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`));

/**
 * The routes the service answers that are deliberately not API operations, each with why. Anything
 * else the route table holds must be in the document (a `hide: true` schema does not excuse a
 * route). Matched against `METHOD /path` in the document's form. `when`: the entry's routes exist
 * only under that condition (so an entry matching nothing is stale only without one).
 */
export const NOT_IN_DOCUMENT: readonly { route: RegExp; reason: string; when?: string }[] = [
  { route: /^HEAD /, reason: 'HEAD: Fastify answers it for every GET, documented by its GET' },
  { route: /^OPTIONS /, reason: 'CORS preflights of the app server (the reference\'s @CrossOrigin), no operation', when: 'CORS_ALLOWED_ORIGINS is set' },
  { route: /^GET \/v3\/api-docs(\.yaml)?$/, reason: 'the OpenAPI document itself' },
  { route: /^GET \/swagger-ui(\/.*)?$/, reason: 'Swagger UI pages and assets' },
  { route: /^GET \/swagger-ui\.html$/, reason: "springdoc's address of Swagger UI: a redirect to /swagger-ui/" },
  { route: /^GET \/java-docs\/(\{\*\})?$/, reason: 'the code documentation (static TypeDoc HTML)', when: 'dist/java-docs is built (npm run docs)' },
  { route: /^GET \/managementportal\/content\//, reason: 'static files of the admin UI (logos, styles)' },
  { route: /^GET \/managementportal\/oauth\/token$/, reason: 'answers only 405 method_not_allowed (the reference\'s body for a GET to the token endpoint)' },
  {
    route: /^(GET|POST) \/managementportal(\/(login|logout|language|notifications|oauth-clients|account|activate|organizations|source-types|audits|audits\.csv|users|projects)(\/.*)?)?$/,
    reason: 'admin UI pages (HTML forms under the context path, not under /api)',
  },
];

/** Whether a `METHOD /path` (document form) is on the NOT_IN_DOCUMENT list. */
export const notInDocument = (key: string) => NOT_IN_DOCUMENT.some(({ route }) => route.test(key));

/**
 * The route table against the document, both ways, each list naming the routes (document form):
 * API routes the document lacks, operations no route serves, operations the exclusion list hides,
 * and unconditional exclusions that match no route (stale).
 */
export function documentCoverage(routes: readonly string[], doc: { paths: Record<string, Record<string, unknown>> }) {
  const served = new Set(routes.map(documentKey));
  const documented = documentOperations(doc);
  const inDocument = new Set(documented);
  const excluded = [...served].filter(notInDocument);
  return {
    /** Served and not excluded: each must be a document operation. */
    api: [...served].filter((key) => !notInDocument(key)),
    excluded,
    notDocumented: [...served].filter((key) => !notInDocument(key) && !inDocument.has(key)),
    noRoute: documented.filter((key) => !served.has(key)),
    documentedButExcluded: documented.filter(notInDocument),
    staleExclusions: NOT_IN_DOCUMENT.filter(({ route, when }) => !when && !excluded.some((key) => route.test(key))).map(({ route, reason }) => `${route} (${reason})`),
  };
}
