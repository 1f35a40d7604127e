/**
 * The RADAR-Schemas catalogue server's answer (`GET …/source-types`) and its mapping onto source
 * types and source data, as the reference's `CatalogSourceTypeMapper` / `CatalogSourceDataMapper`
 * do it (managementportal.md §10). Pure: no I/O.
 *
 * Deviations from the reference, each where it would have failed on a constraint and logged an
 * error: a type without `scope` takes the scope of the list it is in; a topic without `type` takes
 * its `topic` as type (as `POST /api/source-data` does) and one with neither is skipped; a type
 * or topic whose key does not match `ENTITY_ID_REGEX` is skipped with a warning.
 */
import { ENTITY_ID } from '../api/source-types/schemas.js';

/** The four lists of the catalogue server's answer and the scope of their members. */
export const CATALOGUE_LISTS = {
  'passive-source-types': 'PASSIVE',
  'active-source-types': 'ACTIVE',
  'monitor-source-types': 'MONITOR',
  'connector-source-types': 'CONNECTOR',
} as const;
type ListName = keyof typeof CATALOGUE_LISTS;

/** A catalogue answer that cannot be read (not JSON, not the catalogue shape). */
export class CatalogueFormatError extends Error {}

export interface NewSourceType {
  producer: string;
  model: string;
  catalogVersion: string;
  sourceTypeScope: string;
  name: string | null;
  description: string | null;
  assessmentType: string | null;
  appProvider: string | null;
}

export interface NewSourceData {
  sourceDataType: string;
  sourceDataName: string;
  frequency: string | null;
  unit: string | null;
  processingState: string | null;
  keySchema: string | null;
  valueSchema: string | null;
  topic: string | null;
  provider: string | null;
}

export interface Skip { name: string; reason: string }

/** A catalogue entry that can be imported, with the topics that can. */
export interface PlannedSourceType {
  /** `producer model version`, the key the API and the revisions show. */
  key: string;
  type: NewSourceType;
  data: NewSourceData[];
  /** Topics left out because they cannot be stored. */
  dataSkipped: Skip[];
}

export interface CataloguePlan {
  types: PlannedSourceType[];
  /** Entries left out because they cannot be stored (missing or invalid vendor, model, version). */
  skipped: Skip[];
}

const ENTITY_ID_RE = new RegExp(ENTITY_ID);
const validKey = (s: string) => s.length <= 255 && ENTITY_ID_RE.test(s);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A text member; Jackson coerces scalars into a `String` field, so numbers and booleans count. */
function text(v: unknown): string | null {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return null;
}

/** A key member: empty counts as missing. */
const keyText = (v: unknown): string | null => {
  const s = text(v);
  return s === null || s === '' ? null : s;
};

/**
 * `Double.toString` (the reference stores `sample_rate.frequency`, a `Double`, as text through
 * it): `32.0`, `0.5`, `1.0E-4`, `1.5E7`.
 */
export function javaDoubleString(n: number): string {
  const abs = Math.abs(n);
  if (abs === 0 || (abs >= 1e-3 && abs < 1e7)) {
    const s = String(n);
    return Number.isInteger(n) ? `${s}.0` : s;
  }
  const [mantissa, exponent] = n.toExponential().split('e') as [string, string];
  return `${mantissa.includes('.') ? mantissa : `${mantissa}.0`}E${exponent.replace('+', '')}`;
}

function frequencyOf(sampleRate: unknown): string | null {
  if (!isObject(sampleRate)) return null;
  const f = sampleRate.frequency;
  const n = typeof f === 'number' ? f : typeof f === 'string' && f.trim() !== '' ? Number(f) : NaN;
  return Number.isFinite(n) ? javaDoubleString(n) : null;
}

/**
 * Reads the catalogue server's JSON body.
 * @throws CatalogueFormatError when it is not JSON, not an object, has none of the four lists,
 *   or a list is not an array.
 */
export function parseCatalogue(body: string): Array<{ list: ListName; scope: string; index: number; entry: unknown }> {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    throw new CatalogueFormatError('response is not JSON');
  }
  if (!isObject(json)) throw new CatalogueFormatError('response is not a JSON object');
  const lists = Object.keys(CATALOGUE_LISTS) as ListName[];
  if (!lists.some((l) => json[l] != null)) throw new CatalogueFormatError(`response has none of ${lists.join(', ')}`);
  return lists.flatMap((list) => {
    const entries = json[list];
    if (entries == null) return [];
    if (!Array.isArray(entries)) throw new CatalogueFormatError(`${list} is not an array`);
    return entries.map((entry: unknown, index) => ({ list, scope: CATALOGUE_LISTS[list], index, entry }));
  });
}

/** Maps the catalogue's entries onto rows, leaving out what cannot be stored. */
export function planCatalogue(entries: ReturnType<typeof parseCatalogue>): CataloguePlan {
  const plan: CataloguePlan = { types: [], skipped: [] };
  for (const { list, scope, index, entry } of entries) {
    const label = isObject(entry) ? keyText(entry.name) ?? `${list}[${index}]` : `${list}[${index}]`;
    if (!isObject(entry)) {
      plan.skipped.push({ name: label, reason: 'not an object' });
      continue;
    }
    const producer = keyText(entry.vendor);
    const model = keyText(entry.model);
    const catalogVersion = keyText(entry.version);
    const missing = [producer === null && 'vendor', model === null && 'model', catalogVersion === null && 'version'].filter(Boolean);
    if (missing.length > 0) {
      plan.skipped.push({ name: label, reason: `missing ${missing.join(', ')}` });
      continue;
    }
    const key = `${producer} ${model} ${catalogVersion}`;
    if (![producer!, model!, catalogVersion!].every(validKey)) {
      plan.skipped.push({ name: key, reason: 'vendor, model or version has characters outside [_\'.@A-Za-z0-9- ]' });
      continue;
    }
    const type: NewSourceType = {
      producer: producer!, model: model!, catalogVersion: catalogVersion!,
      sourceTypeScope: keyText(entry.scope) ?? scope,
      name: text(entry.name), description: text(entry.doc),
      assessmentType: text(entry.assessment_type), appProvider: text(entry.app_provider),
    };
    const planned: PlannedSourceType = { key, type, data: [], dataSkipped: [] };
    const topics: unknown[] = Array.isArray(entry.data) ? entry.data : [];
    topics.forEach((item, i) => {
      const at = `${key} data[${i}]`;
      if (!isObject(item)) {
        planned.dataSkipped.push({ name: at, reason: 'not an object' });
        return;
      }
      const topic = text(item.topic);
      const sourceDataType = keyText(item.type) ?? (topic === '' ? null : topic);
      if (sourceDataType === null) {
        planned.dataSkipped.push({ name: at, reason: 'missing type and topic' });
        return;
      }
      const sourceDataName = `${type.producer}_${type.model}_${type.catalogVersion}_${sourceDataType}`;
      if (!validKey(sourceDataName)) {
        planned.dataSkipped.push({ name: sourceDataName, reason: 'name has characters outside [_\'.@A-Za-z0-9- ]' });
        return;
      }
      planned.data.push({
        sourceDataType, sourceDataName,
        frequency: frequencyOf(item.sample_rate), unit: text(item.unit), processingState: text(item.processing_state),
        keySchema: text(item.key_schema), valueSchema: text(item.value_schema), topic, provider: text(item.app_provider),
      });
    });
    plan.types.push(planned);
  }
  return plan;
}
