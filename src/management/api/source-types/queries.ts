/** SQL for source types and source data. Plain functions over an executor; no rules here. */
import { and, asc, count, desc, eq, inArray, ne, notInArray, type AnyColumn, type SQL } from 'drizzle-orm';
import type { Executor } from '../../../platform/database.js';
import type { Page } from '../../http/paging.js';
import {
  projects, projectSourceTypes, sourceData, sources, sourceTypes, type SourceTypeInsert, type SourceDataInsert, type SourceDataRow,
  type SourceTypeRow,
} from '../../schema.js';
import { sourceTypeDto, type SourceTypeDtoT } from './dto.js';


/** ORDER BY for a page's `sort`, with `tiebreak` last so pages are stable. */
export function orderByOf<P extends string>(page: Page<P>, columns: Record<P, AnyColumn>, tiebreak: AnyColumn): SQL[] {
  return [...page.sort.map((s) => (s.direction === 'desc' ? desc(columns[s.property]) : asc(columns[s.property]))), asc(tiebreak)];
}

export const SOURCE_TYPE_SORT = {
  id: sourceTypes.id, producer: sourceTypes.producer, model: sourceTypes.model, catalogVersion: sourceTypes.catalogVersion,
  sourceTypeScope: sourceTypes.sourceTypeScope, canRegisterDynamically: sourceTypes.canRegisterDynamically,
  name: sourceTypes.name, description: sourceTypes.description, assessmentType: sourceTypes.assessmentType, appProvider: sourceTypes.appProvider,
} as const;
export type SourceTypeSort = keyof typeof SOURCE_TYPE_SORT;

export const SOURCE_DATA_SORT = {
  id: sourceData.id, sourceDataType: sourceData.sourceDataType, sourceDataName: sourceData.sourceDataName,
  frequency: sourceData.frequency, unit: sourceData.unit, processingState: sourceData.processingState, dataClass: sourceData.dataClass,
  keySchema: sourceData.keySchema, valueSchema: sourceData.valueSchema, topic: sourceData.topic, provider: sourceData.provider,
  enabled: sourceData.enabled,
} as const;
export type SourceDataSort = keyof typeof SOURCE_DATA_SORT;

// ---- source types

export async function findSourceTypeById(db: Executor, id: number): Promise<SourceTypeRow | undefined> {
  const [row] = await db.select().from(sourceTypes).where(eq(sourceTypes.id, id)).limit(1);
  return row;
}

/** The type with this key; `forUpdate` locks the row until the transaction ends. */
export async function findSourceTypeByKey(db: Executor, producer: string, model: string, version: string, forUpdate = false): Promise<SourceTypeRow | undefined> {
  const query = db.select().from(sourceTypes)
    .where(and(eq(sourceTypes.producer, producer), eq(sourceTypes.model, model), eq(sourceTypes.catalogVersion, version))).limit(1);
  const [row] = forUpdate ? await query.for('update') : await query;
  return row;
}

/** One page of source-type ids and the total. */
export async function pageSourceTypeIds(db: Executor, page: Page<SourceTypeSort>): Promise<{ ids: number[]; total: number }> {
  const [rows, [total]] = await Promise.all([
    db.select({ id: sourceTypes.id }).from(sourceTypes)
      .orderBy(...orderByOf(page, SOURCE_TYPE_SORT, sourceTypes.id)).limit(page.size).offset(page.offset),
    db.select({ n: count() }).from(sourceTypes),
  ]);
  return { ids: rows.map((r) => r.id), total: total?.n ?? 0 };
}

export async function sourceTypesOf(db: Executor, producer: string, model?: string): Promise<SourceTypeRow[]> {
  return db.select().from(sourceTypes)
    .where(model === undefined ? eq(sourceTypes.producer, producer) : and(eq(sourceTypes.producer, producer), eq(sourceTypes.model, model)))
    .orderBy(asc(sourceTypes.id));
}

export async function insertSourceType(db: Executor, row: SourceTypeInsert): Promise<SourceTypeRow> {
  const [inserted] = await db.insert(sourceTypes).values(row).returning();
  return inserted!;
}

export async function updateSourceType(db: Executor, id: number, set: Partial<SourceTypeInsert>): Promise<SourceTypeRow | undefined> {
  const [row] = await db.update(sourceTypes).set(set).where(eq(sourceTypes.id, id)).returning();
  return row;
}

/** Deletes the type; its source data go with it (ON DELETE CASCADE). */
export async function deleteSourceType(db: Executor, id: number): Promise<void> {
  await db.delete(sourceTypes).where(eq(sourceTypes.id, id));
}

/** Names of the projects that use the type, by name. */
export async function projectNamesUsingType(db: Executor, typeId: number): Promise<string[]> {
  const rows = await db.select({ name: projects.projectName }).from(projectSourceTypes)
    .innerJoin(projects, eq(projects.id, projectSourceTypes.projectId))
    .where(eq(projectSourceTypes.sourceTypeId, typeId)).orderBy(asc(projects.projectName));
  return rows.map((r) => r.name);
}

/** Names of the sources (deleted ones too: their rows still reference the type) of a type. */
export async function sourceNamesUsingType(db: Executor, typeId: number): Promise<string[]> {
  const rows = await db.select({ name: sources.sourceName }).from(sources)
    .where(eq(sources.sourceTypeId, typeId)).orderBy(asc(sources.sourceName));
  return rows.map((r) => r.name);
}

// ---- source data

export async function findSourceDataByName(db: Executor, name: string): Promise<SourceDataRow | undefined> {
  const [row] = await db.select().from(sourceData).where(eq(sourceData.sourceDataName, name)).limit(1);
  return row;
}

export async function findSourceDataById(db: Executor, id: number): Promise<SourceDataRow | undefined> {
  const [row] = await db.select().from(sourceData).where(eq(sourceData.id, id)).limit(1);
  return row;
}

export async function sourceDataOfType(db: Executor, typeId: number): Promise<SourceDataRow[]> {
  return db.select().from(sourceData).where(eq(sourceData.sourceTypeId, typeId)).orderBy(asc(sourceData.id));
}

/** Which of `names` other source data (not `exceptIds`) already use. */
export async function sourceDataNamesTaken(db: Executor, names: readonly string[], exceptIds: readonly number[] = []): Promise<string[]> {
  if (names.length === 0) return [];
  const rows = await db.select({ name: sourceData.sourceDataName }).from(sourceData)
    .where(and(inArray(sourceData.sourceDataName, [...names]), exceptIds.length > 0 ? notInArray(sourceData.id, [...exceptIds]) : undefined));
  return rows.map((r) => r.name);
}

/** One page of source data with their types, and the total. */
export async function pageSourceData(db: Executor, page: Page<SourceDataSort>): Promise<{ rows: { data: SourceDataRow; type: SourceTypeRow | null }[]; total: number }> {
  const [rows, [total]] = await Promise.all([
    db.select({ data: sourceData, type: sourceTypes }).from(sourceData)
      .leftJoin(sourceTypes, eq(sourceTypes.id, sourceData.sourceTypeId))
      .orderBy(...orderByOf(page, SOURCE_DATA_SORT, sourceData.id)).limit(page.size).offset(page.offset),
    db.select({ n: count() }).from(sourceData),
  ]);
  return { rows, total: total?.n ?? 0 };
}

export async function insertSourceData(db: Executor, rows: readonly SourceDataInsert[]): Promise<SourceDataRow[]> {
  if (rows.length === 0) return [];
  return db.insert(sourceData).values([...rows]).returning();
}

export async function updateSourceData(db: Executor, id: number, set: Partial<SourceDataInsert>): Promise<SourceDataRow | undefined> {
  const [row] = await db.update(sourceData).set(set).where(eq(sourceData.id, id)).returning();
  return row;
}

export async function deleteSourceData(db: Executor, ids: readonly number[]): Promise<void> {
  if (ids.length === 0) return;
  await db.delete(sourceData).where(inArray(sourceData.id, [...ids]));
}

/** Whether another source type than `exceptId` has this key. */
export async function sourceTypeKeyTaken(db: Executor, key: { producer: string; model: string; catalogVersion: string }, exceptId: number): Promise<boolean> {
  const [row] = await db.select({ id: sourceTypes.id }).from(sourceTypes)
    .where(and(eq(sourceTypes.producer, key.producer), eq(sourceTypes.model, key.model), eq(sourceTypes.catalogVersion, key.catalogVersion), ne(sourceTypes.id, exceptId)))
    .limit(1);
  return row !== undefined;
}

/** Source types by id with their source data, in the order of `ids`. */
export async function loadSourceTypeDtos(db: Executor, ids: readonly number[]): Promise<SourceTypeDtoT[]> {
  if (ids.length === 0) return [];
  const unique = [...new Set(ids)];
  const [types, data] = await Promise.all([
    db.select().from(sourceTypes).where(inArray(sourceTypes.id, unique)),
    db.select().from(sourceData).where(inArray(sourceData.sourceTypeId, unique)).orderBy(asc(sourceData.id)),
  ]);
  const byId = new Map(types.map((t) => [t.id, t]));
  return ids.flatMap((id) => {
    const type = byId.get(id);
    return type ? [sourceTypeDto(type, data.filter((d) => d.sourceTypeId === id))] : [];
  });
}
