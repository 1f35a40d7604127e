/**
 * Typed in-process publish/subscribe. Services publish after their transaction commits
 * (ARCHITECTURE rule 5); a failing listener is logged and never affects the publisher.
 */
import type { FastifyBaseLogger } from 'fastify';

export interface MessageStateChange {
  kind: 'notification' | 'data';
  messageId: number;
  projectId: string;
  subjectId: string;
  state: string;
  time: Date;
  associatedInfo: Record<string, string> | null;
}

/** Every event type and its payload. */
export interface EventMap {
  'message.state': MessageStateChange;
}

type Listener<K extends keyof EventMap> = (payload: EventMap[K]) => void | Promise<void>;

export class EventBus {
  private readonly listeners = new Map<keyof EventMap, Set<Listener<keyof EventMap>>>();

  constructor(private readonly log: FastifyBaseLogger) {}

  /** Adds a listener; returns the function that removes it. */
  subscribe<K extends keyof EventMap>(type: K, listener: Listener<K>): () => void {
    let set = this.listeners.get(type);
    if (!set) this.listeners.set(type, (set = new Set()));
    set.add(listener as Listener<keyof EventMap>);
    return () => set.delete(listener as Listener<keyof EventMap>);
  }

  publish<K extends keyof EventMap>(type: K, ...payloads: EventMap[K][]): void {
    const set = this.listeners.get(type);
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
