/**
 * The object key of an uploaded file, built as RADAR-Appserver v2.4.5's `StoragePath` builds it:
 * `[prefix/]{projectId}/{subjectId}/{topicId}/[yyyyMMdd/]{yyyyMMddHHmmss}_{UUID}{.ext}`, blank
 * parts left out, the stored name generated (never the client's name, so one upload cannot
 * overwrite another) and only the original name's last extension kept, lower-cased.
 *
 * Deviation: the times are UTC; the reference used the server's time zone.
 */

export interface ObjectKeyParts {
  /** `RADAR_STORAGE_S3_PATH_PREFIX`; blank: none. */
  prefix: string;
  projectId: string;
  subjectId: string;
  topicId: string;
  /** `RADAR_STORAGE_S3_PATH_COLLECT_PER_DAY`: a `yyyyMMdd` folder per day. */
  collectPerDay: boolean;
  /** The client's file name; only its extension is used. */
  filename: string;
  now: Date;
  uuid: string;
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** `yyyyMMdd` in UTC. */
export function dayFolder(now: Date): string {
  return `${pad(now.getUTCFullYear(), 4)}${pad(now.getUTCMonth() + 1)}${pad(now.getUTCDate())}`;
}

/** `yyyyMMddHHmmss` in UTC. */
export function fileTimestamp(now: Date): string {
  return `${dayFolder(now)}${pad(now.getUTCHours())}${pad(now.getUTCMinutes())}${pad(now.getUTCSeconds())}`;
}

/**
 * From the last dot of the name on, lower-cased (`photo.JPG` → `.jpg`); none without a dot.
 * Deviation: an extension of other characters than letters, digits, `_`, `+` and `-` (a `/`, a
 * space, a control character), or longer than 32, is left out rather than put into the key.
 */
export function fileExtension(filename: string): string {
  const dot = filename.lastIndexOf('.');
  const extension = dot < 0 ? '' : filename.slice(dot).toLowerCase();
  return /^\.[a-z0-9_+-]{1,32}$/.test(extension) ? extension : '';
}

const notBlank = (part: string) => part.trim() !== '';

export function objectKey(parts: ObjectKeyParts): string {
  const name = `${fileTimestamp(parts.now)}_${parts.uuid}${fileExtension(parts.filename)}`;
  const prefix = parts.prefix.replace(/^\/+|\/+$/g, '');
  return [prefix, parts.projectId, parts.subjectId, parts.topicId, parts.collectPerDay ? dayFolder(parts.now) : '', name]
    .filter(notBlank)
    .join('/');
}
