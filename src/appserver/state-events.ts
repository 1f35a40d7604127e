/**
 * What notification (E3) and task (T3) state events reported by clients share: the body's
 * state among the allowed external states (else 400), its `associatedInfo` and time, and the cap
 * on how many events one message or task may collect (409).
 */
import { BadRequest, Conflict } from './errors.js';
import { parseOptionalInstant } from './instant.js';

export interface ExternalStateEventBody {
  state: string;
  time?: string | number | null;
  associatedInfo?: string | Record<string, string> | null;
}

/** Parses `associatedInfo`: a JSON object of strings given as a string (the reference's form) or inline. */
export function parseAssociatedInfo(value: ExternalStateEventBody['associatedInfo']): Record<string, string> | null {
  if (value === null || value === undefined || value === '') return null;
  let parsed: unknown = value;
  if (typeof value === 'string') {
    try {
      parsed = JSON.parse(value);
    } catch {
      throw new BadRequest('associatedInfo must be a JSON object of strings');
    }
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new BadRequest('associatedInfo must be a JSON object of strings');
  return Object.fromEntries(Object.entries(parsed).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]));
}

/**
 * The checked event of a body: its state (400 unless one of `allowed`), time (default now) and
 * `associatedInfo`, parsed and as the stored JSON text (null when empty).
 */
export function readExternalStateEvent<S extends string>(body: ExternalStateEventBody, allowed: readonly S[], clock: () => Date) {
  const state = body.state as S;
  if (!allowed.includes(state)) throw new BadRequest(`The state ${body.state} is not an external state and cannot be updated by this endpoint.`);
  const info = parseAssociatedInfo(body.associatedInfo);
  const time = parseOptionalInstant(body.time, 'time') ?? clock();
  return { state, time, info, associatedInfo: info ? JSON.stringify(info) : null };
}

/** 409 once `count` events have reached `max`. */
export function requireBelowStateEventCap(count: number, max: number): void {
  if (count >= max) throw new Conflict(`The max limit of state changes(${max}) has been reached. Cannot add new states.`);
}
