/** The app server's events on the platform bus: names and payloads. */
import type { EventBus } from '../platform/events.js';
import type { MessageState } from './schema.js';

/** A message's state changed (committed): the scheduler's outcomes, client reports, cancellations. */
export interface MessageStateChange {
  kind: 'notification' | 'data';
  messageId: number;
  projectId: string;
  subjectId: string;
  state: MessageState;
  time: Date;
  associatedInfo: Record<string, string> | null;
}

/**
 * A refresh of the protocol repository stored new, changed or removed protocol files
 * (committed); the schedules of the users they serve need generating again.
 */
export interface ProtocolChange {
  /** The repository paths that changed, e.g. `radar/site/london/protocol.json`. */
  paths: string[];
  /** The projects those paths belong to (their first segment), each once. */
  projectIds: string[];
}

/** Every app-server event and its payload. */
export type AppserverEvents = {
  'message.state': MessageStateChange;
  'protocol.changed': ProtocolChange;
};

export type AppserverEventBus = EventBus<AppserverEvents>;

/**
 * The app server's typed view of the shared platform bus. The platform knows no domain, so its
 * bus is untyped; this is the one place where the app server lays its event map over it.
 */
export const appserverEvents = (bus: EventBus): AppserverEventBus => bus as unknown as AppserverEventBus;
