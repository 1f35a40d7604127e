/**
 * Time arithmetic of schedule generation in a user's zone: `min` and `hour` add exact durations;
 * `day`, `week`, `month` and `year` are calendar steps that keep the local wall time across DST
 * changes (a month step from the 31st ends on the month's last day; a wall time that does not
 * exist is moved forward, as Luxon does). A user's timezone is an IANA name, or an integer = a
 * fixed offset in seconds east of UTC.
 * Reference bug fixed: an integer timezone ("7200") was read by Java's TimeZone as GMT.
 *
 * Calendar steps are done on the local date-time by hand, with the zone's UTC offsets from
 * Luxon's IANAZone, remembered per minute in a `Zones` cache: a run asks for the same few instants
 * (local midnights of the window) for every user of a zone, and Luxon's own arithmetic costs
 * ~20 µs a step.
 */
import { DateTime, IANAZone } from 'luxon';

/** A user's zone: its UTC offset (ms) at an instant. */
export interface UserZone { offsetMs(ms: number): number; fixed: boolean; name: string }

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

/** Offsets remembered per zone and minute; the cache starts over beyond this many entries. */
const MAX_CACHED_OFFSETS = 200_000;

/** Resolves stored timezones to zones, sharing one offset cache (one per schedule service). */
export type Zones = (timezone: string) => UserZone;

export function createZones(): Zones {
  const zones = new Map<string, UserZone>();
  let cached = 0;
  return (timezone) => {
    const known = zones.get(timezone);
    if (known) return known;
    const text = timezone.trim();
    let zone: UserZone;
    if (/^[+-]?\d+$/.test(text)) {
      const offset = Number(text) * 1000;
      zone = { offsetMs: () => offset, fixed: true, name: text };
    } else if (IANAZone.isValidZone(text)) {
      const iana = IANAZone.create(text);
      const byMinute = new Map<number, number>();
      zone = {
        fixed: false,
        name: text,
        offsetMs(ms) {
          const minute = Math.floor(ms / MINUTE);
          let offset = byMinute.get(minute);
          if (offset === undefined) {
            if (++cached > MAX_CACHED_OFFSETS) {
              for (const z of zones.values()) (z as { clear?: () => void }).clear?.();
              cached = 1;
            }
            offset = iana.offset(minute * MINUTE) * MINUTE;
            byMinute.set(minute, offset);
          }
          return offset;
        },
        clear: () => byMinute.clear(),
      } as UserZone;
    } else {
      zone = { offsetMs: () => 0, fixed: true, name: 'UTC' }; // the user service accepts no other names
    }
    zones.set(timezone, zone);
    return zone;
  };
}

/** The zone of a stored timezone, without a shared cache. */
export const userZone = (timezone: string): UserZone => createZones()(timezone);

/**
 * The instant of a local time (as epoch ms of the same wall clock in UTC), starting from the
 * offset `guess`: Luxon's fixOffset, so results match Luxon in DST gaps and overlaps.
 */
function fromLocal(zone: UserZone, local: number, guess: number): number {
  let utc = local - guess;
  const o2 = zone.offsetMs(utc);
  if (o2 === guess) return utc;
  utc -= o2 - guess;
  const o3 = zone.offsetMs(utc);
  if (o2 === o3) return utc;
  return local - Math.min(o2, o3);
}

const CALENDAR_UNITS = ['day', 'week', 'month', 'year'] as const;

export const isTimeUnit = (unit: string | undefined): unit is 'min' | 'hour' | (typeof CALENDAR_UNITS)[number] =>
  unit === 'min' || unit === 'hour' || (CALENDAR_UNITS as readonly (string | undefined)[]).includes(unit);

/** `ms` plus `amount` units in the zone; undefined for a unit the protocol format does not know. */
export function addUnits(zone: UserZone, ms: number, unit: string | undefined, amount: number): number | undefined {
  if (unit === 'min') return ms + amount * MINUTE;
  if (unit === 'hour') return ms + amount * HOUR;
  if (!isTimeUnit(unit)) return undefined;
  const offset = zone.offsetMs(ms);
  const local = new Date(ms + offset); // its UTC fields are the local wall time
  let year = local.getUTCFullYear();
  let month = local.getUTCMonth();
  let day = local.getUTCDate();
  if (unit === 'day') day += amount;
  else if (unit === 'week') day += 7 * amount;
  else {
    if (unit === 'month') month += amount;
    else year += amount;
    const first = new Date(Date.UTC(year, month, 1));
    year = first.getUTCFullYear();
    month = first.getUTCMonth();
    day = Math.min(day, new Date(Date.UTC(year, month + 1, 0)).getUTCDate());
  }
  const wall = Date.UTC(year, month, day, local.getUTCHours(), local.getUTCMinutes(), local.getUTCSeconds(), local.getUTCMilliseconds());
  return zone.fixed ? wall - offset : fromLocal(zone, wall, offset);
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
export function startOfLocalDay(zone: UserZone, ms: number): number {
  const offset = zone.offsetMs(ms);
  const local = ms + offset;
  const midnight = local - (((local % DAY) + DAY) % DAY);
  return zone.fixed ? midnight - offset : fromLocal(zone, midnight, offset);
}

/**
 * A local date (`2024-05-01`) or date-time (`2024-05-01T09:00`) in the zone as an instant; the
 * date form is its midnight. Undefined when unreadable.
 */
export function parseLocal(zone: UserZone, text: string, dateOnly: boolean): number | undefined {
  const dt = DateTime.fromISO(text, { zone: 'utc', setZone: true });
  if (!dt.isValid) return undefined;
  if (/(Z|[+-]\d{2}(:?\d{2})?)$/i.test(text.trim()) && !dateOnly) return dt.toMillis(); // an explicit offset wins
  const wall = (dateOnly ? dt.startOf('day') : dt).toMillis();
  return zone.fixed ? wall - zone.offsetMs(wall) : fromLocal(zone, wall, zone.offsetMs(wall));
}

/**
 * A protocol duration in ms, as the reference measures completion windows: a month is 31 days
 * and a year 365 days; undefined for an unknown unit.
 */
export function durationMs(unit: string | undefined, amount: number): number | undefined {
  const unitMs = unit === undefined ? undefined : ({ min: MINUTE, hour: HOUR, day: DAY, week: 7 * DAY, month: 31 * DAY, year: 365 * DAY } as Record<string, number>)[unit];
  return unitMs === undefined ? undefined : unitMs * amount;
}
