/**
 * `/projects/{name}/subjects/{login}` (issue 31 item 6): one subject with every field, its
 * attributes, group and sources, the pairing codes an app can still read (client and expiry,
 * never the code), and its history: every revision the API lists (`GET /api/subjects/{login}/revisions`)
 * with who, when and what changed, old → new, each revision compared with the one before it.
 *
 * The page calls the API's services with the signed-in user: SUBJECT.READ on the subject, as the
 * API checks it (403 page); a subject of another project is a 404 page. A subject moved to another
 * project keeps its history (revisions follow the subject, not the project).
 */
import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ProjectDtoT } from '../../api/projects/dto.js';
import type { RevisionDtoT } from '../../api/subjects/schemas.js';
import type { SubjectRevisionsService } from '../../api/subjects/subject-revisions.js';
import type { SubjectService } from '../../api/subjects/service.js';
import type { PairingService } from '../../pairing/service.js';
import { actorOf, principal } from '../../security/authorization.js';
import { hasPermission } from '../../authz/oracle.js';
import { context, render } from '../context.js';
import type { MessageKey, Translate } from '../../i18n/translator.js';
import { headerOf, PROJECT_NAME, subjectPath } from './project.js';
import type { ShownFields } from './subject-form.js';
import { notActiveReason, subjectOfProject } from './subjects.js';

export interface SubjectPageServices {
  subjects: SubjectService;
  subjectRevisions: SubjectRevisionsService;
  pairing: PairingService;
  fields: ShownFields;
}

/** Revisions a page of the history shows, newest first. */
export const HISTORY_PAGE_SIZE = 100;

const Params = Type.Object({ name: Type.String(PROJECT_NAME), login: Type.String({ minLength: 1, maxLength: 255 }) });
const Query = Type.Object({ history: Type.Optional(Type.Integer({ minimum: 0, maximum: 100_000 })), updated: Type.Optional(Type.String({ maxLength: 255 })) });

/** Bookkeeping of a stored SubjectDTO that is no change a coordinator made. */
const NOT_COMPARED = new Set(['id', 'createdBy', 'createdDate', 'lastModifiedBy', 'lastModifiedDate', 'roles']);
/** Fields with a label of their own, in the order a change lists them. */
const FIELD_ORDER = ['login', 'project', 'externalId', 'externalLink', 'personName', 'dateOfBirth', 'enrollmentDate', 'status', 'group', 'sources'];

const text = (value: unknown): string => {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
};

/**
 * A stored SubjectDTO as comparable text fields: the project by name, the sources by name, one
 * field per attribute (`attributes.<key>`); bookkeeping (ids, roles, created/modified) left out.
 */
export function flatten(entity: unknown): Map<string, string> {
  const fields = new Map<string, string>();
  if (typeof entity !== 'object' || entity === null) return fields;
  for (const [key, value] of Object.entries(entity as Record<string, unknown>)) {
    if (NOT_COMPARED.has(key)) continue;
    if (key === 'project') {
      fields.set(key, text((value as { projectName?: unknown } | null)?.projectName));
    } else if (key === 'attributes' && typeof value === 'object' && value !== null) {
      for (const [name, v] of Object.entries(value as Record<string, unknown>)) fields.set(`attributes.${name}`, text(v));
    } else if (key === 'sources' && Array.isArray(value)) {
      fields.set(key, value.map((s) => text((s as { sourceName?: unknown } | null)?.sourceName)).sort().join(', '));
    } else {
      fields.set(key, text(value));
    }
  }
  return fields;
}

export interface FieldChange { field: string; old: string; new: string }

const rank = (field: string) => {
  const at = FIELD_ORDER.indexOf(field);
  return at >= 0 ? at : FIELD_ORDER.length;
};

/** What changed from `before` (undefined: nothing existed) to `after`, field by field, empty values as ''. */
export function changesBetween(before: unknown, after: unknown): FieldChange[] {
  const old = flatten(before);
  const now = flatten(after);
  const names = [...new Set([...old.keys(), ...now.keys()])];
  return names
    .filter((field) => (old.get(field) ?? '') !== (now.get(field) ?? ''))
    .sort((a, b) => rank(a) - rank(b) || a.localeCompare(b))
    .map((field) => ({ field, old: old.get(field) ?? '', new: now.get(field) ?? '' }));
}

export interface HistoryEntry {
  id: number;
  timestamp: string;
  author: string;
  revisionType: string;
  changes: FieldChange[];
}

/**
 * The history of revisions newest first: each compared with the next older one in `revisions`;
 * the oldest (`hasOlder`: compared with nothing shown, so it is only used as the base) is left out.
 */
export function historyOf(revisions: readonly RevisionDtoT[], hasOlder: boolean): HistoryEntry[] {
  const shown = hasOlder ? revisions.length - 1 : revisions.length;
  const entries: HistoryEntry[] = [];
  for (let i = 0; i < shown; i++) {
    const r = revisions[i]!;
    const previous = i + 1 < revisions.length ? revisions[i + 1]!.entity : undefined;
    entries.push({
      id: r.id, timestamp: r.timestamp, author: r.author, revisionType: r.revisionType,
      changes: r.revisionType === 'DEL' ? [] : changesBetween(r.revisionType === 'ADD' ? undefined : previous, r.entity),
    });
  }
  return entries;
}

/** A field's label on the page. */
export function fieldLabel(t: Translate, field: string): string {
  if (field.startsWith('attributes.')) return t('subjectPage.field.attribute', { key: field.slice('attributes.'.length) });
  return FIELD_ORDER.includes(field) ? t(`subjectPage.field.${field}` as MessageKey) : field;
}

export const subjectPageRoutes: FastifyPluginAsyncTypebox<SubjectPageServices> = async (app, { subjects, subjectRevisions, pairing, fields }) => {
  app.get('/projects/:name/subjects/:login', { schema: { hide: true, params: Params, querystring: Query } }, async (request, reply) => {
    const { t, base } = context(request);
    const { name, login } = request.params;
    const actor = actorOf(request);
    const subject = await subjectOfProject(request, subjects, name, login);
    const historyPage = request.query.history ?? 0;
    const offset = historyPage * HISTORY_PAGE_SIZE;
    // One revision more than shown: the base the oldest shown one is compared with.
    const [history, tokens] = await Promise.all([
      subjectRevisions.list(login, { page: historyPage, size: HISTORY_PAGE_SIZE + 1, offset, sort: [{ property: 'id', direction: 'desc' }] }, actor),
      pairing.readableTokens({ userName: actor.name, address: actor.address, check: actor.check }, login),
    ]);
    const hasOlder = history.revisions.length > HISTORY_PAGE_SIZE;
    const path = subjectPath(base, name, login);
    const auth = principal(request);
    const organization = subject.project?.organizationName ?? subject.project?.organization?.name;
    const entity = { project: name, ...(organization ? { organization } : {}), subject: login };
    const project = headerOf(request, name, 'subjects', (subject.project ?? { projectName: name }) as ProjectDtoT);
    const attributes = Object.entries(subject.attributes).sort(([a], [b]) => a.localeCompare(b));
    return render(request, reply, 'projects/subject', {
      title: t('subjectPage.title', { login }),
      project, subject, path, fields, attributes, tokens,
      inactive: notActiveReason(request, subject),
      notice: request.query.updated !== undefined ? t('subjects.updated', { login: request.query.updated }) : null,
      may: { update: hasPermission(auth, 'SUBJECT.UPDATE', entity), delete: hasPermission(auth, 'SUBJECT.DELETE', entity) },
      history: historyOf(history.revisions, hasOlder),
      historyTotal: history.total,
      label: (field: string) => fieldLabel(t, field),
      newer: historyPage > 0 ? `${path}?history=${historyPage - 1}#history` : null,
      older: offset + HISTORY_PAGE_SIZE < history.total ? `${path}?history=${historyPage + 1}#history` : null,
    });
  });
};
