/**
 * Time arithmetic of schedule generation in a user's zone (Luxon): `min` and `hour` add exact
 * durations; `day`, `week`, `month` and `year` are calendar steps that keep the local wall time
 * across DST changes. A user's timezone is an IANA name, or an integer = a fixed offset in
 * seconds east of UTC.
 * Reference bug fixed: an integer timezone ("7200") was read by Java's TimeZone as GMT.
 */
import { DateTime, IANAZone } from 'luxon';

export type UserZone = { kind: 'iana'; name: string } | { kind: 'fixed'; offsetMs: number };

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

/** The zone of a stored timezone (IANA name or offset seconds); an unknown name is UTC. */
export function userZone(timezone: string): UserZone {
  const text = timezone.trim();
  if (/^[+-]?\d+$/.test(text)) return { kind: 'fixed', offsetMs: Number(text) * 1000 };
  return IANAZone.isValidZone(text) ? { kind: 'iana', name: text } : { kind: 'fixed', offsetMs: 0 };
}

/**
 * The local date-time of an instant. A fixed offset is applied by hand (Luxon's fixed zones have
 * minute precision; the offset is in seconds), and the local time is then computed as UTC.
 */
function local(zone: UserZone, ms: number): DateTime {
  return zone.kind === 'iana' ? DateTime.fromMillis(ms, { zone: zone.name }) : DateTime.fromMillis(ms + zone.offsetMs, { zone: 'utc' });
}

const instant = (zone: UserZone, dt: DateTime): number => (zone.kind === 'iana' ? dt.toMillis() : dt.toMillis() - zone.offsetMs);

const CALENDAR_UNITS = { day: 'days', week: 'weeks', month: 'months', year: 'years' } as const;

export const isTimeUnit = (unit: string | undefined): unit is 'min' | 'hour' | keyof typeof CALENDAR_UNITS =>
  unit === 'min' || unit === 'hour' || (unit !== undefined && unit in CALENDAR_UNITS);

/** `ms` plus `amount` units in the zone; undefined for a unit the protocol format does not know. */
export function addUnits(zone: UserZone, ms: number, unit: string | undefined, amount: number): number | undefined {
  if (unit === 'min') return ms + amount * MINUTE;
  if (unit === 'hour') return ms + amount * HOUR;
  if (!isTimeUnit(unit) || unit === 'min' || unit === 'hour') return undefined;
  return instant(zone, local(zone, ms).plus({ [CALENDAR_UNITS[unit]]: amount }));
}

/**
 * A length of `amount` units that is never shorter than the calendar step (used to jump close to
 * a window without overshooting it): a day is 24 h, a month 31 days, a year 366 days.
 */
export function longestStepMs(unit: string, amount: number): number {
  const unitMs = { min: MINUTE, hour: HOUR, day: DAY, week: 7 * DAY, month: 31 * DAY, year: 366 * DAY }[unit] ?? DAY;
  return unitMs * amount;
}

/** Midnight (local) of the day the instant falls on in the zone. */
export const startOfLocalDay = (zone: UserZone, ms: number): number => instant(zone, local(zone, ms).startOf('day'));

/**
 * A local date (`2024-05-01`) or date-time (`2024-05-01T09:00`) in the zone as an instant; the
 * date form is its midnight. Undefined when unreadable.
 */
export function parseLocal(zone: UserZone, text: string, dateOnly: boolean): number | undefined {
  const dt = zone.kind === 'iana' ? DateTime.fromISO(text, { zone: zone.name }) : DateTime.fromISO(text, { zone: 'utc' });
  if (!dt.isValid) return undefined;
  return instant(zone, dateOnly ? dt.startOf('day') : dt);
}

/**
 * A protocol duration in ms, as the reference measures completion windows: a month is 31 days
 * and a year 365 days; undefined for an unknown unit.
 */
export function durationMs(unit: string | undefined, amount: number): number | undefined {
  const unitMs = unit === undefined ? undefined : ({ min: MINUTE, hour: HOUR, day: DAY, week: 7 * DAY, month: 31 * DAY, year: 365 * DAY } as Record<string, number>)[unit];
  return unitMs === undefined ? undefined : unitMs * amount;
}
