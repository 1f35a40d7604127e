/**
 * What every response of the fuzzer must hold: no 5xx; a status the operation documents; a body
 * (and media type) that fits the documented response schema, compiled with AJV from the served
 * OpenAPI document; and on a 4xx, the error body of the domain that answered.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { isJavaxEmail } from '../../src/platform/validation.js';
import type { Schema } from './arbitraries.js';

export interface Reply {
  statusCode: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: string;
}

/** The error body each part of the service answers a client error with. */
const ERROR_BODIES: Record<string, Schema> = {
  managementApi: {
    anyOf: [
      { type: 'object', required: ['message', 'description', 'fieldErrors'], properties: { message: { type: 'string', pattern: '^error\\.' }, description: { type: ['string', 'null'] }, fieldErrors: { type: ['array', 'null'] } } },
      { type: 'object', required: ['message', 'entityName', 'errorCode', 'params'], properties: { message: { type: 'string' }, entityName: { type: 'string' }, errorCode: { type: 'string' }, params: { type: 'object', required: ['timestamp'] } } },
    ],
  },
  oauth: { type: 'object', required: ['error', 'error_description'], properties: { error: { type: 'string', pattern: '^[a-z_]+$' }, error_description: { type: 'string' } } },
  appserver: {
    anyOf: [
      { type: 'object', required: ['timestamp', 'status', 'message', 'path'], properties: { timestamp: { type: 'number' }, status: { type: 'integer' }, message: { type: 'string' }, path: { type: 'string', pattern: '^uri=/' } } },
      { type: 'object', required: ['message', 'errorMessage', 'dto'] },
    ],
  },
  actuator: { type: 'object', required: ['status', 'error', 'message'], properties: { status: { type: 'integer' }, error: { type: 'string' }, message: { type: 'string' } } },
};

/** Which error body a path answers with (`html`: the sign-in and consent pages). */
export function errorDomain(path: string): keyof typeof ERROR_BODIES | 'html' {
  if (path.startsWith('/actuator')) return 'actuator';
  if (/^\/managementportal\/oauth\/(authorize|login)$/.test(path)) return 'html';
  if (path.startsWith('/managementportal/oauth/') || path.startsWith('/managementportal/.well-known/')) return 'oauth';
  if (path.startsWith('/managementportal/')) return 'managementApi';
  return 'appserver';
}

export class Oracle {
  private readonly ajv: Ajv2020;
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(private readonly doc: Schema) {
    this.ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true });
    addFormats.default(this.ajv);
    this.ajv.addFormat('email', { type: 'string', validate: isJavaxEmail });
    this.ajv.addSchema({ $id: 'doc', components: doc.components }, 'doc');
  }

  private validator(key: string, schema: Schema): ValidateFunction {
    let validate = this.compiled.get(key);
    if (!validate) {
      // The document's `#/components/schemas/X` refs point into the schema registered as `doc`.
      const rebased = JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"doc#/components/'));
      validate = this.ajv.compile(rebased);
      this.compiled.set(key, validate);
    }
    return validate;
  }

  /** The problems with `reply` to `method path` (the document's path), empty when it holds. */
  check(method: string, path: string, reply: Reply): string[] {
    const problems: string[] = [];
    const status = reply.statusCode;
    if (status >= 500) problems.push(`status ${status} (a server error)`);
    const op = this.doc.paths[path]?.[method.toLowerCase()];
    const documented = op?.responses?.[String(status)] ?? op?.responses?.[`${String(status)[0]}XX`];
    if (!documented) {
      problems.push(`status ${status} is not documented (documented: ${Object.keys(op?.responses ?? {}).join(', ')})`);
    }
    const mediaType = String(reply.headers['content-type'] ?? '').split(';')[0]!.trim();
    let body: unknown;
    let parsed = false;
    if (mediaType === 'application/json' || /\+json$/.test(mediaType)) {
      try { body = JSON.parse(reply.body); parsed = true; } catch { problems.push(`the ${mediaType} body is not JSON`); }
    }
    if (documented?.content) {
      const content = documented.content[mediaType];
      if (!content) {
        problems.push(`media type ${mediaType || '(none)'} is not documented for ${status} (documented: ${Object.keys(documented.content).join(', ')})`);
      } else if (content.schema && (parsed || mediaType === 'text/plain')) {
        const validate = this.validator(`${method} ${path} ${status} ${mediaType}`, content.schema);
        if (!validate(parsed ? body : reply.body)) problems.push(`the body does not match the documented ${status} schema: ${this.ajv.errorsText(validate.errors)}`);
      }
    } else if (documented && reply.body !== '' && status !== 302) {
      problems.push(`a ${status} body (${mediaType}) where the document says there is none`);
    }
    if (status >= 400 && status < 500) {
      const domain = errorDomain(path);
      if (domain === 'html') {
        if (mediaType !== 'text/html') problems.push(`a ${status} of a page answered ${mediaType || '(no media type)'}, not text/html`);
      } else {
        const validate = this.validator(`error ${domain}`, ERROR_BODIES[domain]);
        if (!parsed || !validate(body)) problems.push(`the ${status} body is not the ${domain} error body: ${reply.body.slice(0, 300)}`);
        else if (domain === 'appserver' && (body as { status?: number }).status !== undefined && (body as { status?: number }).status !== status) problems.push(`the error body's status ${(body as { status?: number }).status} is not the reply's ${status}`);
      }
    }
    return problems;
  }
}
