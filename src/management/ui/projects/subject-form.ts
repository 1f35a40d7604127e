/**
 * The "Create subject" and "Edit subject" forms: their fields as the browser sends them (strings)
 * and their conversion into the API's `SubjectInputT`. A value the form cannot take gives a
 * `FormProblem` (the form is shown again with an alert and what was typed). Pure.
 */
import { Type, type Static } from 'typebox';
import { parseLocalDate } from '../../api/subjects/criteria.js';
import type { SubjectDtoT, SubjectInputT } from '../../api/subjects/schemas.js';
import type { MessageKey } from '../../i18n/translator.js';

export const SubjectForm = Type.Object({
  _csrf: Type.String(),
  externalId: Type.Optional(Type.String({ maxLength: 255 })),
  personName: Type.Optional(Type.String({ maxLength: 255 })),
  dateOfBirth: Type.Optional(Type.String({ maxLength: 100 })),
  group: Type.Optional(Type.String({ maxLength: 50 })),
  attributes: Type.Optional(Type.String({ maxLength: 100_000 })),
  /** "Edit subject" only: the project to move the subject to (its own by default). */
  project: Type.Optional(Type.String({ maxLength: 255 })),
});
export type SubjectFormT = Static<typeof SubjectForm>;

/** What the form's fields show. */
export interface SubjectFormValues {
  externalId: string;
  personName: string;
  dateOfBirth: string;
  group: string;
  attributes: string;
  /** The project the subject is in, or is to be moved to (edit only; '' when creating). */
  project?: string;
}

/** Which optional subject fields the pages show (the site setting hides some). */
export interface ShownFields {
  personName: boolean;
  dateOfBirth: boolean;
  group: boolean;
}

/** The fields shown, from `MANAGEMENTPORTAL_SITE_SETTINGS_HIDDEN_SUBJECT_FIELDS` (the reference's names). */
export const shownFields = (hidden: readonly string[]): ShownFields => ({
  personName: !hidden.includes('person_name'),
  dateOfBirth: !hidden.includes('date_of_birth'),
  group: !hidden.includes('group'),
});

export class FormProblem extends Error {
  constructor(readonly key: MessageKey) { super(key); this.name = 'FormProblem'; }
}

const MAX_ATTRIBUTES = 200;

/**
 * What the form sent; a hidden field keeps its value in `kept` (the stored subject's when editing,
 * none when creating), whatever a crafted form sends for it.
 */
export const formValuesOf = (body: SubjectFormT, fields: ShownFields, kept?: SubjectFormValues): SubjectFormValues => ({
  externalId: body.externalId ?? '',
  personName: fields.personName ? body.personName ?? '' : kept?.personName ?? '',
  dateOfBirth: fields.dateOfBirth ? body.dateOfBirth ?? '' : kept?.dateOfBirth ?? '',
  group: fields.group ? body.group ?? '' : kept?.group ?? '',
  attributes: body.attributes ?? '',
  ...(kept?.project !== undefined ? { project: body.project ?? kept.project } : {}),
});

/** The form's values of a stored subject (attributes one `key=value` a line). */
export const formValuesOfSubject = (subject: SubjectDtoT): SubjectFormValues => ({
  externalId: subject.externalId ?? '',
  personName: subject.personName ?? '',
  dateOfBirth: subject.dateOfBirth ?? '',
  group: subject.group ?? '',
  attributes: Object.entries(subject.attributes).map(([key, value]) => `${key}=${value}`).join('\n'),
  project: subject.project?.projectName ?? '',
});

/**
 * Attributes typed as `key=value` lines (blank lines skipped), for the subject and source forms:
 * `problem` when a line has no key, a key over 255 characters, a value over `maxValueLength`, or
 * there are more than 200 attributes.
 */
export function attributesOf(text: string, problem: MessageKey, maxValueLength = Number.POSITIVE_INFINITY): Record<string, string> {
  const attributes: Record<string, string> = {};
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '') continue;
    const at = line.indexOf('=');
    const key = at > 0 ? line.slice(0, at).trim() : '';
    if (key === '' || key.length > 255 || line.length - at - 1 > maxValueLength) throw new FormProblem(problem);
    attributes[key] = line.slice(at + 1).trim();
  }
  if (Object.keys(attributes).length > MAX_ATTRIBUTES) throw new FormProblem(problem);
  return attributes;
}

const orNull = (value: string) => (value.trim() === '' ? null : value.trim());

/**
 * The API body of the form for `project`. For an edit, `existing` gives what the form does not
 * show (id, link, enrolment date, status), so saving keeps them.
 */
export function subjectInputOf(values: SubjectFormValues, project: { id: number; projectName: string }, existing?: SubjectDtoT): SubjectInputT {
  const dateOfBirth = orNull(values.dateOfBirth);
  if (dateOfBirth !== null && !parseLocalDate(dateOfBirth)) throw new FormProblem('subjects.dateInvalid');
  const input: SubjectInputT = {
    project: { id: project.id, projectName: project.projectName },
    externalId: orNull(values.externalId),
    personName: orNull(values.personName),
    dateOfBirth,
    group: orNull(values.group),
    attributes: attributesOf(values.attributes, 'subjects.attributesInvalid'),
  };
  if (existing) {
    input.id = existing.id;
    input.externalLink = existing.externalLink;
    input.enrollmentDate = existing.enrollmentDate;
  }
  return input;
}
