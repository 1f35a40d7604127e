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

/** Parses an ISO-8601 string or epoch seconds; throws 400 naming the field otherwise. */
export function parseInstant(value: string | number, field: string): Date {
  let date: Date;
  if (typeof value === 'number') {
    date = new Date(Math.round(value * 1000));
  } else if (/^-?\d+(\.\d+)?$/.test(value.trim())) {
    date = new Date(Math.round(Number(value) * 1000));
  } else {
    date = /^\d{4}-\d{2}-\d{2}T/.test(value) ? new Date(value) : new Date(NaN);
  }
  if (Number.isNaN(date.getTime())) throw new DomainError(400, `${field} must be an ISO-8601 instant or epoch seconds, got ${JSON.stringify(value)}`);
  return date;
}

export function parseOptionalInstant(value: string | number | null | undefined, field: string): Date | null {
  return value === null || value === undefined ? null : parseInstant(value, field);
}
