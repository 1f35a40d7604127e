/** The platform's generic event bus (platform/events.ts): any domain's event map, no domain types of its own. */
import { describe, expect, it } from 'vitest';
import pino from 'pino';
import type { FastifyBaseLogger } from 'fastify';
import { EventBus } from '../../src/platform/events.js';
import { until } from '../helpers/eventually.js';
import { captureLog } from '../helpers/log-capture.js';

type TestEvents = { 'thing.made': { id: number }; 'thing.gone': string };

function bus() {
  const captured = captureLog();
  return { events: new EventBus<TestEvents>(pino({ level: 'info' }, captured.stream) as unknown as FastifyBaseLogger), lines: captured.lines };
}

describe('EventBus', () => {
  it('delivers each payload to the listeners of its type, after publish returns', async () => {
    const { events } = bus();
    const made: number[] = [];
    const gone: string[] = [];
    events.subscribe('thing.made', (e) => { made.push(e.id); });
    events.subscribe('thing.gone', (e) => { gone.push(e); });
    events.publish('thing.made', { id: 1 }, { id: 2 });
    expect(made).toEqual([]);
    await until(() => expect(made).toEqual([1, 2]));
    expect(gone).toEqual([]);
  });

  it('stops delivering to a listener once unsubscribed', async () => {
    const { events } = bus();
    const seen: string[] = [];
    const unsubscribe = events.subscribe('thing.gone', (e) => { seen.push(e); });
    events.publish('thing.gone', 'a');
    await until(() => expect(seen).toEqual(['a']));
    unsubscribe();
    events.publish('thing.gone', 'b');
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(seen).toEqual(['a']);
  });

  it('logs a failing listener, and the other listeners still hear the event', async () => {
    const { events, lines } = bus();
    const seen: number[] = [];
    events.subscribe('thing.made', () => { throw new Error('listener broke'); });
    events.subscribe('thing.made', async () => { throw new Error('async listener broke'); });
    events.subscribe('thing.made', (e) => { seen.push(e.id); });
    expect(() => events.publish('thing.made', { id: 7 })).not.toThrow();
    await until(() => expect(lines().filter((l) => l.msg === 'event listener failed')).toHaveLength(2));
    expect(seen).toEqual([7]);
    expect(lines().map((l) => [l.type, (l.err as { message: string }).message]).sort())
      .toEqual([['thing.made', 'async listener broke'], ['thing.made', 'listener broke']]);
  });
});
