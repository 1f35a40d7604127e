/**
 * Request validation for both domains: one AJV configuration per HTTP part.
 *
 * Query strings, path parameters and headers are text, so AJV coerces them ("12" → 12). JSON
 * bodies carry their own types and are validated as sent: a `true` or `"1"` where an integer id
 * belongs is a 400, never id 1 (STYLE.md §2.3). Where a real client sends another type (enum
 * ordinals, an integer time zone), the schema names that union explicitly.
 *
 * Both configurations keep Fastify's defaults (`useDefaults`, `removeAdditional`, ajv-formats)
 * plus `allowUnionTypes` (instants and time zones are type arrays), and read `format: 'email'`
 * as the references' bean validation does (`isJavaxEmail`).
 */
import { isIPv4, isIPv6 } from 'node:net';
import { domainToASCII } from 'node:url';
import { AjvCompiler } from '@fastify/ajv-compiler';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';

type AjvOptions = NonNullable<FastifyServerOptions['ajv']>;
type AjvInstance = Parameters<NonNullable<AjvOptions['onCreate']>>[0];
type RouteSchema = { schema: unknown; method?: string; url?: string; httpPart?: string; contentType?: string };
type Compile = (route: RouteSchema) => unknown;
type Validate = ((data: unknown, context?: unknown) => unknown) & { errors?: unknown };

// Hibernate Validator 8 `AbstractEmailValidator` / `DomainNameUtil`, which javax/jakarta `@Email`
// runs in ManagementPortal and the app server.
const LOCAL_ATOM = "[a-z0-9!#$%&'*+/=?^_`{|}~\\u0080-\\uFFFF-]";
const QUOTED_ATOM = "(?:[a-z0-9!#$%&'*.(),<>\\[\\]:;  @+/=?^_`{|}~\\u0080-\\uFFFF-]|\\\\\\\\|\\\\\")";
const LOCAL_WORD = `(?:${LOCAL_ATOM}+|"${QUOTED_ATOM}+")`;
const LOCAL_PART = new RegExp(`^${LOCAL_WORD}(?:\\.${LOCAL_WORD})*$`, 'i');
const DOMAIN_CHAR = "[a-z\\u0080-\\uFFFF0-9!#$%&'*+/=?^_`{|}~]";
const DOMAIN_LABEL = `${DOMAIN_CHAR}+(?:-+${DOMAIN_CHAR}+)*`;
const DOMAIN = new RegExp(`^${DOMAIN_LABEL}(?:\\.${DOMAIN_LABEL})*$`, 'i');

/**
 * Whether `value` is an e-mail address as javax `@Email` (Hibernate Validator) accepts it. Unlike
 * ajv-formats' `email`, a host without a dot is valid (`admin@localhost`, the demo users' address).
 */
export function isJavaxEmail(value: string): boolean {
  const at = value.lastIndexOf('@');
  if (at <= 0 || at === value.length - 1) return false;
  const local = value.slice(0, at);
  const domain = value.slice(at + 1);
  if (local.length > 64 || !LOCAL_PART.test(local)) return false;
  if (domain.endsWith('.') || domain.length > 255) return false;
  if (domain.startsWith('[') && domain.endsWith(']')) {
    const literal = domain.slice(1, -1);
    return literal.startsWith('IPv6:') ? isIPv6(literal.slice(5)) : isIPv4(literal);
  }
  if (!DOMAIN.test(domain)) return false;
  // Hibernate checks the length after IDN.toASCII; a name that has no ASCII form is invalid.
  const ascii = domainToASCII(domain);
  return ascii !== '' && ascii.length <= 255;
}

const addJavaxEmailFormat = (ajv: AjvInstance) => {
  ajv.addFormat('email', { type: 'string', validate: isJavaxEmail });
};

/** The `ajv` server option: Fastify's defaults plus union types and the javax e-mail format. */
export const ajvOptions = {
  customOptions: { allowUnionTypes: true },
  onCreate: addJavaxEmailFormat,
} satisfies AjvOptions;

/**
 * A validator compiled on its first call. Compiling all ~400 route schemas (validators and
 * serializers) took about a second of every start, most for routes a given process never
 * serves; a schema that does not compile fails that route's first request instead, and the
 * fuzzer (test/fuzz) calls every operation. `schemaEnv` makes Fastify pass `parentData` (AJV
 * coerces a root value through it), as it does for an AJV validator; the errors are copied back
 * because Fastify reads them from the function it holds.
 */
function lazyValidator(compile: () => Validate): Validate {
  let validate: Validate | undefined;
  const lazy: Validate & { schemaEnv: true } = Object.assign((data: unknown, context?: unknown) => {
    validate ??= compile();
    const result = validate(data, context);
    lazy.errors = validate.errors;
    return result;
  }, { errors: null as unknown, schemaEnv: true as const });
  return lazy;
}

/**
 * The `schemaController` server option: bodies compile on an AJV without type coercion, every
 * other part on one with Fastify's `coerceTypes: 'array'`. Each encapsulation context's shared
 * schemas (`addSchema`) reach both instances. Validators and response serializers compile on
 * first use (`lazyValidator`), and the AJV instances are made then.
 */
export function perPartSchemaController(): NonNullable<FastifyServerOptions['schemaController']> {
  const coercingPool = AjvCompiler();
  const strictPool = AjvCompiler();
  // The AJV instances too are made on the first validator's compile: each new one compiles JSON
  // Schema's meta-schema to check the shared schemas against (~50 ms apiece, a handful of
  // instances: one per part and encapsulation context with its own shared schemas).
  const buildValidator = (externalSchemas: Record<string, unknown>, options: AjvOptions = ajvOptions) => {
    let coercing: Compile | undefined;
    let strict: Compile | undefined;
    const compiler = (part: string | undefined): Compile => {
      if (part === 'body') {
        const strictOptions = { ...options, customOptions: { ...options.customOptions, coerceTypes: false } };
        return (strict ??= strictPool(externalSchemas as never, strictOptions as never) as unknown as Compile);
      }
      return (coercing ??= coercingPool(externalSchemas as never, options) as unknown as Compile);
    };
    return ((route: RouteSchema) => lazyValidator(() => compiler(route.httpPart)(route) as Validate)) as never;
  };
  const serializers = SerializerSelector();
  const buildSerializer = (externalSchemas: unknown, options: unknown) => {
    const compile = serializers(externalSchemas as never, options as never) as unknown as (route: RouteSchema) => (data: unknown) => string;
    return ((route: RouteSchema) => {
      let serialize: ((data: unknown) => string) | undefined;
      return (data: unknown) => (serialize ??= compile(route))(data);
    }) as never;
  };
  return { compilersFactory: { buildValidator, buildSerializer } };
}
