/** The guard against values the database cannot take (platform/input-guard.ts), without Fastify. */
import { describe, expect, it } from 'vitest';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '../../src/platform/errors.js';
import { rejectUnstorableInput, type UnstorableValue } from '../../src/platform/input-guard.js';

/** What the guard finds in a request, or undefined. */
function check(request: { query?: unknown; params?: unknown; body?: unknown }): UnstorableValue | undefined {
  let found: UnstorableValue | undefined;
  let error: unknown;
  rejectUnstorableInput((f) => { found = f; return new Error('refused'); })(request as FastifyRequest, {} as FastifyReply, (e) => { error = e; });
  expect(error === undefined).toBe(found === undefined);
  return found;
}

describe('rejectUnstorableInput', () => {
  it('passes ordinary input, an absent body and binary bodies', () => {
    expect(check({ query: Object.assign(Object.create(null), { a: 'b', n: '1' }), params: {}, body: { x: [1, 'two', { y: null, z: true }], big: 1e300 } })).toBeUndefined();
    expect(check({ query: {}, params: {}, body: undefined })).toBeUndefined();
    expect(check({ body: Buffer.from([0, 0, 0]) })).toBeUndefined();
    expect(check({ body: 'text without it' })).toBeUndefined();
  });

  it('finds a NUL character in a value or a key, naming the part and the path', () => {
    expect(check({ query: Object.assign(Object.create(null), { login: 'a\u0000' }) })).toEqual({ location: 'querystring', field: 'login', problem: 'nul' });
    expect(check({ params: { id: '\u0000' } })).toEqual({ location: 'params', field: 'id', problem: 'nul' });
    expect(check({ body: { a: [{ b: 'ok' }, { b: 'x\u0000y' }] } })).toEqual({ location: 'body', field: 'a.1.b', problem: 'nul' });
    expect(check({ body: { attributes: { 'k\u0000': 'v' } } })).toEqual({ location: 'body', field: 'attributes.k\\u0000', problem: 'nul' });
    expect(check({ body: 'raw\u0000text' })).toEqual({ location: 'body', field: '', problem: 'nul' });
  });

  it('finds a number that is not finite', () => {
    expect(check({ query: { page: Infinity } })).toEqual({ location: 'querystring', field: 'page', problem: 'number' });
    expect(check({ body: [{ id: -Infinity }] })).toEqual({ location: 'body', field: '0.id', problem: 'number' });
    expect(check({ body: { n: NaN } })).toEqual({ location: 'body', field: 'n', problem: 'number' });
  });

  it('stops at a bounded depth', () => {
    let deep: unknown = 'x\u0000';
    for (let i = 0; i < 100; i++) deep = [deep];
    expect(check({ body: deep })).toBeUndefined();
    let shallow: unknown = 'x\u0000';
    for (let i = 0; i < 10; i++) shallow = { a: shallow };
    expect(check({ body: shallow })?.field).toBe(Array(10).fill('a').join('.'));
  });

  it('by default fails with a 400 DomainError that names the value', () => {
    let error: unknown;
    rejectUnstorableInput()({ query: { q: '\u0000' } } as unknown as FastifyRequest, {} as FastifyReply, (e) => { error = e; });
    expect(error).toBeInstanceOf(DomainError);
    expect(error).toMatchObject({ status: 400, statusCode: 400, message: 'querystring.q must not contain the NUL character (U+0000)' });
  });
});
