/**
 * The parts of an aRMT protocol (appserver.md §2.7) that schedule generation reads, and the
 * interface through which it is handed a user's protocol. Protocols come from GitHub as JSON and
 * are kept as stored; these types only describe what is read, everything else passes through.
 */

/** Texts by language code (`en`, `nl`, …); any code is kept, not only the reference's six. */
export type LanguageText = Record<string, string | null | undefined>;

export interface TimePeriod { unit?: string; amount?: number }

export interface AssessmentProtocol {
  repeatProtocol?: TimePeriod & { randomAmountBetween?: number[] | null; dayOfWeek?: unknown };
  reminders?: (TimePeriod & { repeat?: number }) | null;
  completionWindow?: TimePeriod | null;
  repeatQuestionnaire?: {
    unit?: string;
    unitsFromZero?: number[] | null;
    randomUnitsFromZeroBetween?: number[][] | null;
    dayOfWeekMap?: unknown;
  };
  referenceTimestamp?: string | { timestamp?: string; format?: string } | null;
  clinicalProtocol?: unknown;
  notification?: {
    mode?: string;
    title?: LanguageText | null;
    text?: LanguageText | null;
    email?: { enabled?: boolean; title?: LanguageText | null; text?: LanguageText | null } | null;
  } | null;
}

export interface Assessment {
  name: string;
  type?: string | null;
  estimatedCompletionTime?: number | null;
  warn?: LanguageText | null;
  protocol?: AssessmentProtocol | null;
  order?: number | null;
  nQuestions?: number | null;
  nquestions?: number | null;
  showInCalendar?: boolean | null;
  isDemo?: boolean | null;
  [key: string]: unknown;
}

export interface Protocol {
  version?: string;
  schemaVersion?: string;
  name?: string;
  protocols?: Assessment[];
  [key: string]: unknown;
}

import { DomainError } from '../../platform/errors.js';

/** A user's protocol and an identifier of its content: a new `version` means the protocol changed. */
export interface UserProtocol { protocol: Protocol; version: string }

/**
 * Where schedule generation gets protocols (the GitHub-backed protocol cache in production).
 * `forUser` answers undefined only when the user has no protocol; it throws when it cannot tell
 * (then the user's generation fails and is retried by the next run, nothing is deleted).
 */
export interface ProtocolSource {
  forUser(projectId: string, subjectId: string, attributes: Record<string, string>): Promise<UserProtocol | undefined>;
  /** Calls `listener` whenever a refresh finds a changed protocol; returns the unsubscribe function. */
  onChange(listener: () => void): () => void;
}

/**
 * What a source throws when no protocol can be read for now (GitHub unreachable and no copy
 * stored): an expected outage, which the source logs when it starts and ends. Generation waits
 * it out without an error line per user; the next run (or the refresh that ends it) generates.
 * A request that needs the protocol answers 502.
 */
export class ProtocolsUnreachable extends DomainError {
  constructor(message: string) {
    super(502, message);
    this.name = 'ProtocolsUnreachable';
  }
}

/** The source with no protocols: nothing is generated (until a real source is wired in). */
export const noProtocols: ProtocolSource = {
  forUser: async () => undefined,
  onChange: () => () => {},
};

/**
 * The GitHub-backed protocols (protocols/service.ts) as a schedule `ProtocolSource`: a file's git
 * blob sha is its version, and a refresh that stores changed files (the `protocol.changed` event,
 * after its commit) tells the schedules to generate again. Its outage errors become
 * `ProtocolsUnreachable` (same status and message).
 */
export function scheduleProtocolSource(
  protocols: { forUser(projectId: string, subjectId: string, attributes: Readonly<Record<string, string>>): Promise<{ protocol: unknown; sha: string } | undefined> },
  events: { subscribe(type: 'protocol.changed', listener: () => void): () => void },
  /** Whether an error of `protocols.forUser` means the protocols cannot be read for now (an outage). */
  unavailable: (err: unknown) => boolean,
): ProtocolSource {
  return {
    async forUser(projectId, subjectId, attributes) {
      let found;
      try {
        found = await protocols.forUser(projectId, subjectId, attributes);
      } catch (err) {
        throw unavailable(err) ? new ProtocolsUnreachable((err as Error).message) : err;
      }
      return found && { protocol: found.protocol as Protocol, version: found.sha };
    },
    onChange: (listener) => events.subscribe('protocol.changed', () => listener()),
  };
}
