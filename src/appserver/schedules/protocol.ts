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

/** The source with no protocols: nothing is generated (until a real source is wired in). */
export const noProtocols: ProtocolSource = {
  forUser: async () => undefined,
  onChange: () => () => {},
};
