/**
 * fast-check arbitraries built from the OpenAPI document's schemas: values that fit a schema
 * (within its bounds), hostile values (wrong types, huge strings and arrays, Unicode edge cases,
 * ids of the wrong shape), and whole HTTP requests for one operation (path, duplicate query keys,
 * missing and extra fields, truncated JSON and forms, wrong `Content-Type`).
 */
import fc, { type Arbitrary } from 'fast-check';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON schemas from the document
export type Schema = any;

export interface Operation {
  method: string;
  /** The document's path, `{name}` for parameters. */
  path: string;
  parameters: { name: string; in: 'path' | 'query' | 'header'; required?: boolean; schema: Schema }[];
  /** The request body's schema and media types, when it has one. */
  body?: { schema: Schema; mediaTypes: string[] };
}

export interface FuzzRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string;
}

/** Strings a parser, a database or a renderer may trip over. */
export const NASTY_STRINGS: readonly string[] = [
  '', ' ', '\u0000', 'a\u0000b', '\uD800', 'x\uDFFFy', '\u202Egnp.exe', '\u200F\u05E9\u05DC\u05D5\u05DD', '😀👩‍👩‍👧‍👦',
  'e\u0301\u0301\u0301\u0301', 'Z\u0351\u0352\u0353\u0354\u0355', '\uFEFFbom', '\uFFFF\uFFFE', '\r\n\t', 'null', 'undefined', 'true', '-0', '0x10', '1e309', 'NaN',
  '99999999999999999999999999', '-1', '0', '2147483648', '9007199254740993', '1.5', "' OR 1=1 --", '"; DROP TABLE x; --', '../../etc/passwd',
  '%', '%zz', '%00', '<script>alert(1)</script>', '{{7*7}}', '${jndi:ldap://x}', '__proto__', 'constructor', 'a'.repeat(300), '\\', '/', '?#&=',
  '2030-13-45T25:61:61Z', '1970-01-01T00:00:00Z', '9999-12-31T23:59:59.999Z', 'ROLE_SYS_ADMIN',
];

const huge = fc.constantFrom('x'.repeat(70_000), '\u00e9'.repeat(20_000), '😀'.repeat(10_000));

/** Any JSON value of a type the schema may not want, or a nasty one. */
export const hostileValue: Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...NASTY_STRINGS) },
  { weight: 1, arbitrary: huge },
  { weight: 2, arbitrary: fc.constantFrom<unknown>(null, true, false, 0, -1, 1.5, -0, 1e308, -1e308, 2 ** 31, 2 ** 53 + 2, Number.MAX_SAFE_INTEGER, [], {}, [null], { '': '' }) },
  { weight: 1, arbitrary: fc.constant(Array.from({ length: 5_000 }, (_, i) => i)) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
);

/** `arbitrary` in about one case of `n`, else null (fc.option's `freq` is the other way round). */
export const oneIn = <T>(n: number, arbitrary: Arbitrary<T>): Arbitrary<T | null> =>
  fc.oneof({ weight: 1, arbitrary }, { weight: n - 1, arbitrary: fc.constant(null) });

export class Schemas {
  constructor(private readonly components: Record<string, Schema>) {}

  resolve(schema: Schema): Schema {
    let s = schema;
    for (let i = 0; typeof s?.$ref === 'string' && i < 10; i++) s = this.components[s.$ref.replace('#/components/schemas/', '')];
    return s ?? {};
  }

  /** A value that fits `schema` (mostly), with a hostile one in about one node of `1 / hostility`. */
  value(schema: Schema, hostility = 8, depth = 0): Arbitrary<unknown> {
    const valid = this.valid(schema, hostility, depth);
    return hostility === 0 ? valid : fc.oneof({ weight: hostility, arbitrary: valid }, { weight: 1, arbitrary: hostileValue });
  }

  private valid(input: Schema, hostility: number, depth: number): Arbitrary<unknown> {
    const schema = this.resolve(input);
    const alternatives = schema.anyOf ?? schema.oneOf;
    if (Array.isArray(alternatives) && alternatives.length > 0) return fc.oneof(...alternatives.map((s: Schema) => this.value(s, hostility, depth)));
    if (Array.isArray(schema.enum) && schema.enum.length > 0) return fc.constantFrom(...schema.enum);
    if (schema.const !== undefined) return fc.constant(schema.const);
    const examples: unknown[] = Array.isArray(schema.examples) ? schema.examples : [];
    const types: string[] = [schema.type ?? (schema.properties ? 'object' : 'any')].flat();
    const byType = types.map((type) => this.ofType(type, schema, hostility, depth));
    const arbitrary = byType.length === 1 ? byType[0]! : fc.oneof(...byType);
    return examples.length > 0 ? fc.oneof({ weight: 1, arbitrary: fc.constantFrom(...examples) }, { weight: 2, arbitrary }) : arbitrary;
  }

  private ofType(type: string, schema: Schema, hostility: number, depth: number): Arbitrary<unknown> {
    switch (type) {
      case 'null': return fc.constant(null);
      case 'boolean': return fc.boolean();
      case 'integer': {
        const min = Math.max(schema.minimum ?? -(2 ** 31), Number.MIN_SAFE_INTEGER);
        const max = Math.min(schema.maximum ?? 2 ** 31, Number.MAX_SAFE_INTEGER);
        return fc.oneof(fc.integer({ min: Math.max(min, -1000), max: Math.max(Math.min(max, 1000), Math.max(min, -1000)) }), fc.constantFrom(min, max));
      }
      case 'number': return fc.double({ noNaN: true, noDefaultInfinity: true, min: schema.minimum ?? -1e12, max: schema.maximum ?? 1e12 });
      case 'string': return this.string(schema, hostility > 0);
      case 'array': {
        const items = depth > 4 ? fc.constant(null) : this.value(schema.items ?? {}, hostility, depth + 1);
        const minLength = Math.min(schema.minItems ?? 0, 3);
        return fc.array(items, { minLength, maxLength: Math.max(minLength, Math.min(schema.maxItems ?? 3, 3)) });
      }
      case 'object': return depth > 4 ? fc.constant({}) : this.object(schema, hostility, depth);
      default: return fc.jsonValue({ maxDepth: 2 });
    }
  }

  private string(schema: Schema, nasty: boolean): Arbitrary<string> {
    const maxLength = Math.min(schema.maxLength ?? 40, 40);
    const minLength = Math.min(schema.minLength ?? 0, maxLength);
    switch (schema.format) {
      case 'email': return fc.emailAddress();
      case 'date-time': return fc.date({ min: new Date('1900-01-01'), max: new Date('2200-01-01'), noInvalidDate: true }).map((d) => d.toISOString());
      case 'date': return fc.date({ min: new Date('1900-01-01'), max: new Date('2200-01-01'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10));
      case 'uri': return fc.webUrl();
      case 'uuid': return fc.uuid();
      default: break;
    }
    if (typeof schema.pattern === 'string') {
      // Patterns are short anchored classes here; a string from the pattern fits, others test the 400.
      return fc.oneof(fc.stringMatching(new RegExp(schema.pattern)).filter((s) => s.length <= Math.max(maxLength, 1) * 4), fc.string({ minLength, maxLength }));
    }
    return fc.oneof(
      { weight: 3, arbitrary: fc.string({ minLength, maxLength }) },
      { weight: 1, arbitrary: fc.string({ unit: 'grapheme', minLength, maxLength }) },
      { weight: nasty ? 1 : 0, arbitrary: fc.constantFrom(...NASTY_STRINGS) },
    );
  }

  private object(schema: Schema, hostility: number, depth: number): Arbitrary<Record<string, unknown>> {
    const properties: Record<string, Schema> = schema.properties ?? {};
    const model = Object.fromEntries(Object.entries(properties).map(([key, s]) => [key, this.value(s, hostility, depth + 1)]));
    const required = ((schema.required ?? []) as string[]).filter((key) => key in properties);
    // Required keys stay most of the time; a missing one is a case of its own.
    const withRequired = fc.oneof(
      { weight: 4, arbitrary: fc.record(model, { requiredKeys: required }) },
      { weight: hostility > 0 ? 1 : 0, arbitrary: fc.record(model, { requiredKeys: [] }) },
    );
    if (hostility === 0) return withRequired;
    const extra = schema.additionalProperties && typeof schema.additionalProperties === 'object'
      ? fc.dictionary(fc.string({ maxLength: 10 }), this.value(schema.additionalProperties, hostility, depth + 1), { maxKeys: 3 })
      : fc.dictionary(fc.constantFrom('extra', 'id', '__proto__x', 'x'.repeat(200), ''), hostileValue, { maxKeys: 2 });
    return fc.tuple(withRequired, oneIn(4, extra)).map(([value, more]) => ({ ...value, ...(more ?? {}) }));
  }
}

/** Percent-encodes a path or query value; a lone surrogate becomes its invalid UTF-8 bytes. */
export function encode(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return value.split('').map((ch) => {
      const code = ch.charCodeAt(0);
      if (code >= 0xd800 && code <= 0xdfff) return `%${(0xe0 | (code >> 12)).toString(16)}%${(0x80 | ((code >> 6) & 0x3f)).toString(16)}%${(0x80 | (code & 0x3f)).toString(16)}`.toUpperCase();
      return encodeURIComponent(ch);
    }).join('');
  }
}

const text = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value) ?? '');

/** Raw path and query texts that no encoder would produce. */
// Not `.` or `..`: a URL parser resolves those before the request leaves the client.
const RAW_SEGMENTS = ['%', '%zz', '%C0%AF', '%ED%A0%80', '%2e%2e%2f', '%00', ';', '%20', 'a%2Fb', '%E2%80%AE'];

/**
 * A request for `op`: path parameters from `known` (ids the seed data holds) or generated, query
 * parameters present or not (repeated keys, unknown keys), and a body serialized as JSON, truncated
 * JSON, a form, a truncated form, another media type, or nothing.
 */
export function requestFor(op: Operation, schemas: Schemas, known: Record<string, readonly string[]>, clean = false): Arbitrary<FuzzRequest> {
  const pathParams = op.parameters.filter((p) => p.in === 'path');
  const queryParams = op.parameters.filter((p) => p.in === 'query');
  const segment = (name: string, schema: Schema) => (clean
    ? (known[name]?.length ? fc.constantFrom(...known[name]!) : schemas.value(schema, 0).map(text)).map(encode)
    : fc.oneof(
    { weight: known[name]?.length ? 6 : 0, arbitrary: fc.constantFrom(...(known[name]?.length ? known[name]! : ['x'])).map(encode) },
    { weight: 2, arbitrary: schemas.value(schema, 0).map((v) => encode(text(v))) },
    { weight: 2, arbitrary: hostileValue.map((v) => encode(text(v)).slice(0, 5_000)) },
    { weight: 1, arbitrary: fc.constantFrom(...RAW_SEGMENTS) },
  )).map((s) => (s === '' || s === '.' || s === '..' ? '%20' : s));
  const path = fc.tuple(...pathParams.map((p) => segment(p.name, p.schema))).map((values) => {
    let url = op.path;
    pathParams.forEach((p, i) => { url = url.replace(`{${p.name}}`, values[i]!); });
    return url;
  });

  const queryValue = (p: Operation['parameters'][number]) => (clean ? schemas.value(p.schema, 0).map((v) => (Array.isArray(v) ? v.map(text) : [text(v)])) : fc.oneof(
    { weight: known[p.name]?.length ? 3 : 0, arbitrary: fc.constantFrom(...(known[p.name]?.length ? known[p.name]! : ['x'])).map((v) => [v]) },
    { weight: 4, arbitrary: schemas.value(p.schema, 6).map((v) => (Array.isArray(v) ? v.map(text) : [text(v)])) },
    // A duplicate key: the same parameter twice.
    { weight: 1, arbitrary: fc.tuple(hostileValue, hostileValue).map(([a, b]) => [text(a).slice(0, 5_000), text(b).slice(0, 5_000)]) },
  ));
  const query = fc.tuple(
    ...queryParams.map((p) => (p.required ? fc.option(queryValue(p), { freq: 8 }) : oneIn(2, queryValue(p))).map((v) => [p.name, v] as const)),
    oneIn(clean ? 1_000_000 : 4, fc.tuple(fc.constantFrom('unknown', 'page', '__proto__', 'a[b]', ''), fc.constantFrom(...NASTY_STRINGS))),
    oneIn(clean ? 1_000_000 : 8, fc.constantFrom(...RAW_SEGMENTS.map((s) => `${s}=${s}`), '&&&', '=', 'a=1&a=2&a=3')),
  ).map((parts) => {
    const raw = parts.pop() as string | null;
    const extra = parts.pop() as [string, string] | null;
    const pairs: string[] = [];
    for (const [name, values] of parts as unknown as [string, string[] | null][]) for (const v of values ?? []) pairs.push(`${encode(name)}=${encode(v)}`);
    if (extra) pairs.push(`${encode(extra[0])}=${encode(extra[1])}`);
    if (raw) pairs.push(raw);
    return pairs.length > 0 ? `?${pairs.join('&')}` : '';
  });

  const body = op.body ? bodyFor(op.body, schemas, clean) : clean ? fc.constant({ headers: {} as Record<string, string>, payload: undefined as string | undefined }) : fc.oneof(
    { weight: 8, arbitrary: fc.constant({ headers: {} as Record<string, string>, payload: undefined as string | undefined }) },
    { weight: 1, arbitrary: fc.constantFrom({ headers: { 'content-type': 'application/json' }, payload: '' }, { headers: { 'content-type': 'application/json' }, payload: '{"a":' }, { headers: { 'content-type': 'text/plain' }, payload: 'x' }) },
  );
  return fc.tuple(path, query, body).map(([p, q, b]) => ({ method: op.method.toUpperCase(), url: p + q, headers: b.headers, payload: b.payload }));
}

function form(value: unknown): string {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return encode(text(value));
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(value)) for (const item of Array.isArray(v) ? v : [v]) params.append(k, text(item).replace(/[\uD800-\uDFFF]/g, '?'));
  return params.toString();
}

const BOUNDARY = 'fuzzboundary';
const MULTIPART = { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` };

/** One multipart part: a file when it has a name for one. */
function multipartPart(name: string, content: string, filename?: string): string {
  const disposition = `form-data; name="${name.replace(/["\r\n]/g, '_')}"${filename === undefined ? '' : `; filename="${filename.replace(/["\r\n]/g, '_')}"`}`;
  return `--${BOUNDARY}\r\nContent-Disposition: ${disposition}\r\n${filename === undefined ? '' : 'Content-Type: application/octet-stream\r\n'}\r\n${content}\r\n`;
}

/**
 * A multipart/form-data body (the file upload): a file part `file` when clean; else files and
 * fields under the schema's names or others, empty files, nasty names, cut-off bodies, JSON.
 */
function multipartFor(body: NonNullable<Operation['body']>, clean: boolean): Arbitrary<{ headers: Record<string, string>; payload: string | undefined }> {
  const names = Object.keys(body.schema?.properties ?? {});
  const content = fc.string({ unit: 'binary', maxLength: 200 });
  const filename = fc.oneof(fc.constantFrom('a.txt', 'photo.JPG', 'README', '.hidden', 'a.b/c', '..\\x.sh'), fc.constantFrom(...NASTY_STRINGS));
  if (clean) return fc.tuple(fc.string({ minLength: 1, maxLength: 200 }), filename).map(([c, f]) => ({ headers: MULTIPART, payload: `${multipartPart(names[0] ?? 'file', c, f)}--${BOUNDARY}--\r\n` }));
  const part = fc.tuple(fc.oneof(fc.constantFrom(...names, 'file', 'other'), fc.constantFrom(...NASTY_STRINGS)), content, fc.option(filename, { nil: undefined }))
    .map(([n, c, f]) => multipartPart(n, c, f));
  return fc.tuple(fc.array(part, { maxLength: 3 }), fc.nat(), fc.integer({ min: 0, max: 4 })).map(([parts, cut, mode]) => {
    const whole = `${parts.join('')}--${BOUNDARY}--\r\n`;
    switch (mode) {
      case 0: return { headers: MULTIPART, payload: whole.slice(0, cut % Math.max(whole.length, 1)) };
      case 1: return { headers: { 'content-type': 'multipart/form-data' }, payload: whole };
      case 2: return { headers: { 'content-type': 'application/json' }, payload: '{"file":"x"}' };
      default: return { headers: MULTIPART, payload: whole };
    }
  });
}

function bodyFor(body: NonNullable<Operation['body']>, schemas: Schemas, clean: boolean): Arbitrary<{ headers: Record<string, string>; payload: string | undefined }> {
  if (body.mediaTypes.includes('multipart/form-data')) return multipartFor(body, clean);
  const isForm = body.mediaTypes.includes('application/x-www-form-urlencoded') || /urlencoded/.test(body.schema?.description ?? '');
  if (clean) {
    return schemas.value(body.schema, 0).map((v) => (isForm
      ? { headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: form(v) }
      : { headers: { 'content-type': 'application/json' }, payload: JSON.stringify(v) ?? 'null' }));
  }
  const value = fc.oneof({ weight: 8, arbitrary: schemas.value(body.schema, 8) }, { weight: 1, arbitrary: hostileValue });
  const json = (v: unknown) => JSON.stringify(v) ?? 'null';
  type Body = { headers: Record<string, string>; payload: string | undefined };
  return fc.tuple(value, fc.nat(), fc.integer({ min: 0, max: 9 }), fc.constantFrom('text/plain', 'application/xml', 'multipart/form-data; boundary=x', 'application/json; charset=utf-16', 'application/x-www-form-urlencoded', '', 'application/vnd.api+json', '*/*', 'application/json;;')).map(([v, cut, mode, otherType]): Body => {
    const asJson = json(v);
    const asForm = form(v);
    switch (isForm ? (mode < 4 ? 10 : mode) : mode) {
      case 10: return { headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: asForm };
      case 5: return { headers: { 'content-type': 'application/json' }, payload: asJson.slice(0, cut % Math.max(asJson.length, 1)) };
      case 6: return { headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: (isForm ? asForm : asJson).slice(0, cut % Math.max(asForm.length, 1)) + (cut % 2 ? '%' : '') };
      case 7: return { headers: otherType === '' ? {} as Record<string, string> : { 'content-type': otherType }, payload: otherType.startsWith('application/x-www') ? asForm : asJson };
      case 8: return { headers: { 'content-type': 'application/json' }, payload: undefined };
      case 9: return { headers: { 'content-type': 'application/json' }, payload: json([null, [], 'x', 1, [v]][cut % 5]) };
      default: return { headers: { 'content-type': 'application/json' }, payload: asJson };
    }
  });
}
