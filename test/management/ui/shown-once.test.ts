/**
 * A value shown once after a redirect (src/management/ui/shown-once.ts): the cookie holds only
 * ciphertext, opens for its own session and path's page once, and not after its time, under
 * another secret, or when forged.
 */
import { describe, expect, it } from 'vitest';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { createShownOnce } from '../../../src/management/ui/shown-once.js';

/** A request carrying `cookie` and a reply that records what it sets and clears. */
function exchange(cookie?: string) {
  const set: { name: string; value: string; options: Record<string, unknown> }[] = [];
  const cleared: string[] = [];
  const request = { cookies: cookie === undefined ? {} : { 'shown-once': cookie }, protocol: 'https' } as unknown as FastifyRequest;
  const reply = {
    setCookie: (name: string, value: string, options: Record<string, unknown>) => { set.push({ name, value, options }); return reply; },
    clearCookie: (name: string) => { cleared.push(name); return reply; },
  } as unknown as FastifyReply;
  return { request, reply, set, cleared };
}

describe('shown once', () => {
  let clock = 1_000_000;
  const once = createShownOnce('session-secret', () => clock);
  const kept = (value: string, session = 'session-1') => {
    const post = exchange();
    once.keep(post.request, post.reply, '/mp/oauth-clients/c/secret', session, value);
    return post.set[0]!;
  };

  it('seals the value into an httpOnly, SameSite=Strict, Secure cookie on the page path; no clear text in it', () => {
    const cookie = kept('s3cr3t-value');
    expect(cookie.options).toMatchObject({ httpOnly: true, sameSite: 'strict', secure: true, path: '/mp/oauth-clients/c/secret', maxAge: 300 });
    expect(cookie.value).not.toContain('s3cr3t');
    expect(Buffer.from(cookie.value.replaceAll('.', ''), 'base64url').toString('latin1')).not.toContain('s3cr3t');
  });

  it('opens once for its session, clearing the cookie; not for another session', () => {
    const cookie = kept('value-a');
    const get = exchange(cookie.value);
    expect(once.take(get.request, get.reply, '/p', 'session-1')).toBe('value-a');
    expect(get.cleared).toEqual(['shown-once']);
    const stolen = exchange(cookie.value);
    expect(once.take(stolen.request, stolen.reply, '/p', 'session-2')).toBeUndefined();
    const none = exchange();
    expect(once.take(none.request, none.reply, '/p', 'session-1')).toBeUndefined();
  });

  it('refuses an expired, forged or foreign cookie', () => {
    const cookie = kept('value-b');
    clock += 5 * 60_000 + 1;
    expect(once.take(exchange(cookie.value).request, exchange().reply, '/p', 'session-1')).toBeUndefined();
    clock -= 5 * 60_000 + 1;
    const [iv, sealed, tag] = cookie.value.split('.');
    const flipped = Buffer.from(sealed!, 'base64url');
    flipped[0] = flipped[0]! ^ 1;
    expect(once.take(exchange(`${iv}.${flipped.toString('base64url')}.${tag}`).request, exchange().reply, '/p', 'session-1')).toBeUndefined();
    expect(once.take(exchange('garbage').request, exchange().reply, '/p', 'session-1')).toBeUndefined();
    const other = createShownOnce('another-secret', () => clock);
    expect(other.take(exchange(cookie.value).request, exchange().reply, '/p', 'session-1')).toBeUndefined();
    expect(once.take(exchange(cookie.value).request, exchange().reply, '/p', 'session-1')).toBe('value-b');
  });
});
