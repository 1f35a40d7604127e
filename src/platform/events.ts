/**
 * Typed in-process publish/subscribe. Services publish after their transaction commits
 * (ARCHITECTURE rule 5); a failing listener is logged and never affects the publisher.
 *
 * The bus knows no domain: each domain declares its own event map (event name → payload) and
 * works with a typed view of the one shared bus (e.g. `appserver/events.ts`).
 */
import type { FastifyBaseLogger } from 'fastify';

type Listener<P> = (payload: P) => void | Promise<void>;

export class EventBus<Events extends Record<string, unknown> = Record<string, unknown>> {
  private readonly listeners = new Map<keyof Events, Set<Listener<never>>>();

  constructor(private readonly log: FastifyBaseLogger) {}

  /** Adds a listener; returns the function that removes it. */
  subscribe<K extends keyof Events & string>(type: K, listener: Listener<Events[K]>): () => void {
    let set = this.listeners.get(type);
    if (!set) this.listeners.set(type, (set = new Set()));
    set.add(listener);
    return () => set.delete(listener);
  }

  publish<K extends keyof Events & string>(type: K, ...payloads: Events[K][]): void {
    const set = this.listeners.get(type) as Set<Listener<Events[K]>> | undefined;
    if (!set || set.size === 0) return;
    for (const payload of payloads) {
      for (const listener of set) {
        Promise.resolve()
          .then(() => listener(payload))
          .catch((err: unknown) => this.log.error({ err, type }, 'event listener failed'));
      }
    }
  }
}
