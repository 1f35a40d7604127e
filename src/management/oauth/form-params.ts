/**
 * The parameters of the OAuth endpoints' POSTs: the form body and the query string merged (the
 * body wins), as Spring reads both and real clients send either.
 */
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';

export type FormParams = Readonly<Record<string, string | undefined>>;

/** Query-string and form parameters merged; single values only (the first of a repeated one). */
export function formParams(query: unknown, body: unknown): FormParams {
  const out: Record<string, string | undefined> = {};
  for (const source of [query, body]) {
    if (!source || typeof source !== 'object') continue;
    for (const k in source) {
      const v = (source as Record<string, unknown>)[k];
      if (typeof v === 'string') out[k] = v;
      else if (Array.isArray(v) && typeof v[0] === 'string') out[k] = v[0];
    }
  }
  return out;
}

/**
 * `preValidation` hook: a POST without a body validates as an empty form, since every parameter
 * may come in the query string instead. A callback hook: an async one costs each request a promise.
 */
export function emptyFormBody(req: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  req.body ??= {};
  done();
}
