/**
 * Instants on the app server's wire (appserver.md §0): written as JSON numbers of epoch seconds
 * with the milliseconds as fraction (`1908977158.054`), read from ISO-8601 strings or epoch-second
 * numbers. The questionnaire app reads `scheduledTime` as seconds (clients.md §2.2).
 */
import { DomainError } from '../platform/errors.js';

export function epochSeconds(date: Date): number;
export function epochSeconds(date: Date | null | undefined): number | null;
export function epochSeconds(date: Date | null | undefined): number | null {
  return date ? date.getTime() / 1000 : null;
}

/** Four-digit years only: PostgreSQL cannot read the six-digit years `toISOString()` writes beyond them. */
const EARLIEST = Date.parse('0001-01-01T00:00:00.000Z');
const LATEST = Date.parse('9999-12-31T23:59:59.999Z');

/** Parses an ISO-8601 string or epoch seconds (years 1–9999); throws 400 naming the field otherwise. */
export function parseInstant(value: string | number, field: string): Date {
  let date: Date;
  if (typeof value === 'number') {
    date = new Date(Math.round(value * 1000));
  } else if (/^-?\d+(\.\d+)?$/.test(value.trim())) {
    date = new Date(Math.round(Number(value) * 1000));
  } else {
    // An instant needs its offset (as Java's Instant does): a local time would be read in the server's zone.
    date = /^\d{4}-\d{2}-\d{2}T[\d:.]+(Z|[+-]\d{2}:?\d{2})$/i.test(value.trim()) ? new Date(value.trim()) : new Date(NaN);
  }
  if (Number.isNaN(date.getTime())) throw new DomainError(400, `${field} must be an ISO-8601 instant or epoch seconds, got ${JSON.stringify(value)}`);
  if (date.getTime() < EARLIEST || date.getTime() > LATEST) throw new DomainError(400, `${field} must be between the years 1 and 9999, got ${JSON.stringify(value)}`);
  return date;
}

export function parseOptionalInstant(value: string | number | null | undefined, field: string): Date | null {
  return value === null || value === undefined ? null : parseInstant(value, field);
}
