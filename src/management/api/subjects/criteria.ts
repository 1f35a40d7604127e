/**
 * `SubjectCriteria` of the subject lists (managementportal.md §2.5; the reference's
 * `web/rest/criteria/*` and `SubjectSpecification`): filters, sort and the keyset cursor read
 * from the query string, and the `Link: <…>; rel="next"` that carries them on to the next page.
 * Pure: no database, no request.
 *
 * Reference bugs fixed: the cursor of an `externalId` sort compared external ids with
 * `last.login`; NULL external ids fell out of a sorted walk (here they come last ascending and
 * first descending, as PostgreSQL orders them); `%` and `_` in a filter were wildcards.
 */
import { BadRequest } from '../../errors.js';
import type { SubjectListQueryT } from './schemas.js';

export const SUBJECT_AUTHORITIES = ['ROLE_PARTICIPANT', 'ROLE_INACTIVE_PARTICIPANT'] as const;
export type SubjectAuthority = (typeof SUBJECT_AUTHORITIES)[number];

/** Sortable properties (`SubjectSortBy`): query name and whether it is unique across subjects. */
export const SORT_KEYS = { id: { unique: true }, externalId: { unique: false }, login: { unique: true } } as const;
export type SortKey = keyof typeof SORT_KEYS;

export interface SubjectOrder {
  key: SortKey;
  direction: 'asc' | 'desc';
}

export interface Range<T> {
  is?: T;
  from?: T;
  to?: T;
}

/** The cursor: values of the last row of the previous page. */
export interface SubjectCursor {
  id?: number;
  login?: string;
  /** Null: the last row had no external id. */
  externalId: string | null;
}

export interface SubjectCriteria {
  authorities: SubjectAuthority[];
  projectName?: string;
  externalId?: string;
  login?: string;
  personName?: string;
  humanReadableIdentifier?: string;
  groupId?: number;
  dateOfBirth?: Range<string>;
  enrollmentDate?: Range<Date>;
  page: number;
  size: number;
  /** Ends with a unique key (`id` is appended when none is given). */
  sort: SubjectOrder[];
  last?: SubjectCursor;
}

const ENTITY = 'subject';
const invalid = (message: string) => new BadRequest(message, ENTITY, 'error.validation');

/** The reference's `isValidValue`: blank and the string "null" mean "no filter". */
const filterValue = (v: string | undefined): string | undefined => (v === undefined || v.trim() === '' || v === 'null' ? undefined : v);

/** Repeated or comma-separated values (Spring binds both into a list). */
const flat = (values: readonly string[] | undefined): string[] =>
  (values ?? []).flatMap((v) => v.split(',')).map((v) => v.trim()).filter((v) => v !== '');

/** `SubjectCriteria.parseSort`: `prop[,dir]` items, flattened; duplicates dropped; cut after a unique key; `id` appended. */
export function parseSort(values: readonly string[] | undefined): SubjectOrder[] {
  const orders: SubjectOrder[] = [];
  let previous: SubjectOrder | undefined;
  for (const part of flat(values)) {
    const dir = part.toLowerCase();
    if (previous && (dir === 'asc' || dir === 'desc')) {
      previous.direction = dir;
      previous = undefined;
      continue;
    }
    const key = (Object.keys(SORT_KEYS) as SortKey[]).find((k) => k.toLowerCase() === part.toLowerCase());
    if (!key) throw invalid(`Cannot convert sort parameter ${part} to subject property`);
    previous = { key, direction: 'asc' };
    orders.push(previous);
  }
  const result: SubjectOrder[] = [];
  for (const order of orders) {
    if (result.some((o) => o.key === order.key)) continue;
    result.push(order);
    if (SORT_KEYS[order.key].unique) return result;
  }
  result.push({ key: 'id', direction: 'asc' });
  return result;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A `LocalDate` (`YYYY-MM-DD`, a real calendar day), or undefined when it is not one. */
export function parseLocalDate(value: string): string | undefined {
  const m = DATE.exec(value);
  if (!m) return undefined;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.toISOString().slice(0, 10) === value ? value : undefined;
}

/** Milliseconds to add to UTC to get the wall-clock time of `zone` at `epochMs`. */
function zoneOffsetMs(zone: string, epochMs: number): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: zone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit',
  }).formatToParts(new Date(epochMs));
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  const wall = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
  return wall - Math.floor(epochMs / 1000) * 1000;
}

const ZONED = /^(\d{4}-\d{2}-\d{2})T(\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?(?:\[([A-Za-z0-9_/+-]{1,64})\])?$/;

/**
 * A `ZonedDateTime` as Spring binds it: ISO-8601 with an offset (`2025-01-01T12:00:00Z`), with
 * an offset and a zone id, or with only a zone id (`2025-01-01T00:00[Europe/Amsterdam]`, what
 * the reference's subject list page sends). Without either it is read as UTC.
 */
export function parseZonedDateTime(value: string): Date | undefined {
  const m = ZONED.exec(value);
  if (!m || !parseLocalDate(m[1]!)) return undefined;
  const [, day, hh, mm, ss = '00', frac = '', offset, zone] = m;
  if (Number(hh) > 23 || Number(mm) > 59 || Number(ss) > 59) return undefined;
  const ms = Number((frac.slice(1) + '000').slice(0, 3));
  const local = Date.parse(`${day}T${hh}:${mm}:${ss}Z`) + ms;
  if (offset) {
    if (offset === 'Z') return new Date(local);
    const sign = offset.startsWith('-') ? -1 : 1;
    const digits = offset.slice(1).replace(':', '');
    return new Date(local - sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2))) * 60_000);
  }
  if (!zone) return new Date(local);
  try {
    // Two passes find the offset valid at the resulting instant (across a DST change).
    let guess = local - zoneOffsetMs(zone, local);
    guess = local - zoneOffsetMs(zone, guess);
    return new Date(guess);
  } catch {
    return undefined; // unknown zone id
  }
}

function range<T>(name: string, raw: Range<string | undefined>, parse: (v: string) => T | undefined, compare: (a: T, b: T) => number): Range<T> | undefined {
  const out: Range<T> = {};
  for (const bound of ['is', 'from', 'to'] as const) {
    const value = raw[bound];
    if (value === undefined || value === '') continue;
    const parsed = parse(value);
    if (parsed === undefined) throw invalid(`Invalid value for ${name}.${bound}: ${value}`);
    out[bound] = parsed;
  }
  if (out.is === undefined && out.from === undefined && out.to === undefined) return undefined;
  if (out.is === undefined && out.from !== undefined && out.to !== undefined && compare(out.from, out.to) > 0) {
    throw invalid('CriteriaRange must have a from range that is smaller then the to range.');
  }
  return out;
}

export interface CriteriaOptions {
  /** The list's project (`/api/projects/{projectName}/subjects`), overriding `projectName`. */
  projectName?: string;
}

/** Reads the criteria of a list request; 400 (`error.validation`) for an unknown sort or a bad range or cursor. */
export function subjectCriteria(query: SubjectListQueryT, options: CriteriaOptions = {}): SubjectCriteria {
  const authorities = flat(query.authority).map((a) => {
    const authority = SUBJECT_AUTHORITIES.find((s) => s === a);
    if (!authority) throw invalid(`Unknown authority ${a}; one of ${SUBJECT_AUTHORITIES.join(', ')}`);
    return authority;
  });
  const sort = parseSort(query.sort);
  const hasCursor = query['last.id'] !== undefined || query['last.login'] !== undefined || query['last.externalId'] !== undefined;
  let last: SubjectCursor | undefined;
  if (hasCursor) {
    last = {
      ...(query['last.id'] !== undefined ? { id: query['last.id'] } : {}),
      ...(query['last.login'] !== undefined ? { login: query['last.login'] } : {}),
      // Stored external ids are never empty (an empty one is saved as null), so "" is the UI's "none".
      externalId: query['last.externalId'] ? query['last.externalId'] : null,
    };
    for (const order of sort) {
      if (SORT_KEYS[order.key].unique && last[order.key as 'id' | 'login'] === undefined) {
        throw invalid(`No last value given for sort property ${order.key}`);
      }
    }
  }
  return {
    authorities: authorities.length > 0 ? [...new Set(authorities)] : ['ROLE_PARTICIPANT'],
    ...defined({
      projectName: options.projectName ?? filterValue(query.projectName),
      externalId: filterValue(query.externalId),
      login: filterValue(query.login),
      personName: filterValue(query.personName),
      humanReadableIdentifier: filterValue(query.humanReadableIdentifier),
      groupId: query.groupId,
      dateOfBirth: range('dateOfBirth', { is: query['dateOfBirth.is'], from: query['dateOfBirth.from'], to: query['dateOfBirth.to'] },
        parseLocalDate, (a, b) => a.localeCompare(b)),
      enrollmentDate: range('enrollmentDate', { is: query['enrollmentDate.is'], from: query['enrollmentDate.from'], to: query['enrollmentDate.to'] },
        parseZonedDateTime, (a, b) => a.getTime() - b.getTime()),
      last,
    }),
    page: query.page ?? 0,
    size: query.size ?? 20,
    sort,
  };
}

function defined<T extends Record<string, unknown>>(value: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as { [K in keyof T]?: Exclude<T[K], undefined> };
}

/** The last row of a page, as far as the cursor needs it. */
export interface CursorRow {
  id: number;
  login: string;
  externalId: string | null;
}

/**
 * The reference's `generateSubjectPaginationHttpHeaders` link: `<path?criteria…&last.id=…&last.login=…[&last.externalId=…]>; rel="next"`.
 * The original range strings are repeated as given; `path` is the request's own path.
 */
export function nextLink(path: string, query: SubjectListQueryT, criteria: SubjectCriteria, lastRow: CursorRow): string {
  const params = new URLSearchParams();
  const add = (name: string, value: string | number | undefined) => {
    if (value !== undefined) params.append(name, String(value));
  };
  for (const name of ['dateOfBirth', 'enrollmentDate'] as const) {
    for (const bound of ['is', 'from', 'to'] as const) add(`${name}.${bound}`, query[`${name}.${bound}`] || undefined);
  }
  add('externalId', criteria.externalId);
  add('groupId', criteria.groupId);
  add('personName', criteria.personName);
  add('humanReadableIdentifier', criteria.humanReadableIdentifier);
  add('projectName', query.projectName !== undefined ? criteria.projectName : undefined);
  add('login', criteria.login);
  for (const authority of criteria.authorities) add('authority', authority);
  add('size', criteria.size);
  add('page', criteria.page);
  if (query.sort !== undefined) for (const order of criteria.sort) add('sort', `${order.key},${order.direction}`);
  add('last.id', lastRow.id);
  add('last.login', lastRow.login);
  if (lastRow.externalId) add('last.externalId', lastRow.externalId);
  return `<${path}?${params.toString()}>; rel="next"`;
}
