/**
 * `/users`: the accounts of people who run studies (managementportal.md §13 `user-management`,
 * §2.2): list and search, create with roles, edit (names, e-mail, language, activation, roles),
 * delete, and "Send activation link" (a new creation mail for a user not activated yet). Every
 * page calls the API's `UserService` (and `AccountService` for the link) with the signed-in user,
 * after the scope check its route makes, so the same users are visible and the same changes
 * refused (403 page).
 *
 * Roles are edited as rows of two selects (authority, and project or organization): the user's
 * roles plus two empty rows, so more can be added without JavaScript. The selects offer only the
 * authorities and referents the signed-in user may give (`roleChoices`); the service still refuses
 * (403 page, nothing changed) a role typed into the form past them.
 */
import { Type, type Static } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AccountService } from '../account/service.js';
import type { OrganizationService } from '../api/organizations/service.js';
import type { ProjectService } from '../api/projects/service.js';
import { AUTHORITY_DTOS } from '../api/roles/service.js';
import type { RoleInputT } from '../api/roles/schemas.js';
import { mayChangeRole } from '../api/roles/checks.js';
import type { RoleRef } from '../api/roles/queries.js';
import type { ManagedUserInputT, UserDtoT } from '../api/users/schemas.js';
import { USER_SORTS } from '../api/users/queries.js';
import type { UserService } from '../api/users/service.js';
import { hasScope } from '../authz/oracle.js';
import { AccessDenied } from '../errors.js';
import { pageOf } from '../http/paging.js';
import { actorOf, authorizeScope, principal } from '../security/authorization.js';
import { requirePage } from './nav.js';
import { context, render } from './context.js';
import { formRefusal, PageRefused } from './errors.js';
import { LANGUAGES, type MessageKey } from '../i18n/translator.js';

const PAGE_SIZE = 50;
const LOGIN = /^[_'.@A-Za-z0-9- ]{1,50}$/;
const EMAIL = /^[^\s@]+@[^\s@]+$/;
const EMPTY_ROLE_ROWS = 2;

const text = (maxLength: number) => Type.Optional(Type.String({ maxLength }));
const many = Type.Optional(Type.Union([Type.String({ maxLength: 300 }), Type.Array(Type.String({ maxLength: 300 }), { maxItems: 200 })]));
const UserForm = Type.Object({
  _csrf: Type.String(),
  login: text(100),
  firstName: text(200),
  lastName: text(200),
  email: text(200),
  langKey: text(10),
  activated: text(10),
  roleAuthority: many,
  roleReferent: many,
});
type UserFormT = Static<typeof UserForm>;
/** The list's sortable columns: the API's sort properties. */
const SORTABLE_COLUMNS = ['login', 'lastName', 'email', 'createdDate', 'lastModifiedDate'] as const;
const ListQuery = Type.Object({
  login: text(100),
  name: text(100),
  email: text(100),
  sort: Type.Optional(Type.String({ pattern: `^(${SORTABLE_COLUMNS.join('|')}),(asc|desc)$` })),
  page: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })),
  sent: text(100),
  /** What became of the activation mail (`MailOutcome`): the notice says it. */
  mail: Type.Optional(Type.Union([Type.Literal('queued'), Type.Literal('noAddress'), Type.Literal('noServer')])),
});
const LoginParams = Type.Object({ login: Type.String({ minLength: 1, maxLength: 100 }) });
const CsrfForm = Type.Object({ _csrf: Type.String() });
const schema = { hide: true };

interface RoleRow { authority: string; referent: string }
interface FormValues {
  login: string; firstName: string; lastName: string; email: string; langKey: string; activated: boolean; roles: RoleRow[];
}

/** A select's value for a role's referent: `project:<name>`, `organization:<name>` or empty. */
const referentOf = (role: { projectName?: string | null; organizationName?: string | null }) =>
  role.projectName ? `project:${role.projectName}` : role.organizationName ? `organization:${role.organizationName}` : '';

function valuesOf(user: UserDtoT): FormValues {
  return {
    login: user.login, firstName: user.firstName ?? '', lastName: user.lastName ?? '', email: user.email ?? '', langKey: user.langKey ?? 'en',
    activated: user.activated,
    roles: user.roles.map((role) => ({ authority: role.authorityName ?? '', referent: referentOf(role) })),
  };
}

const asArray = (value: string | string[] | undefined) => (value === undefined ? [] : Array.isArray(value) ? value : [value]);

function formValues(body: UserFormT): FormValues {
  const authorities = asArray(body.roleAuthority);
  const referents = asArray(body.roleReferent);
  return {
    login: (body.login ?? '').trim(), firstName: (body.firstName ?? '').trim(), lastName: (body.lastName ?? '').trim(),
    email: (body.email ?? '').trim(), langKey: body.langKey ?? 'en', activated: body.activated !== undefined,
    roles: authorities.map((authority, i) => ({ authority, referent: referents[i] ?? '' })).filter((r) => r.authority !== '' || r.referent !== ''),
  };
}

class FormProblem extends Error {
  constructor(readonly key: MessageKey, readonly params?: Record<string, string | number>) { super(key); }
}

function roleInputOf(row: RoleRow, n: number): RoleInputT {
  const authority = AUTHORITY_DTOS.find((a) => a.name === row.authority);
  const [kind, ...rest] = row.referent.split(':');
  const name = rest.join(':');
  const wanted = authority?.scope === 'GLOBAL' ? '' : authority?.scope === 'ORGANIZATION' ? 'organization' : 'project';
  if (!authority || (wanted === '' ? row.referent !== '' : kind !== wanted || name === '')) throw new FormProblem('users.badRole', { n });
  if (wanted === 'project') return { authorityName: authority.name, projectName: name };
  if (wanted === 'organization') return { authorityName: authority.name, organizationName: name };
  return { authorityName: authority.name };
}

/** The API input of a form; throws FormProblem for what the API's schema would refuse. */
function inputOf(values: FormValues): ManagedUserInputT {
  if (!LOGIN.test(values.login)) throw new FormProblem('users.badLogin');
  if (values.email !== '' && (!EMAIL.test(values.email) || values.email.length < 5 || values.email.length > 100)) throw new FormProblem('users.badEmail');
  if (values.firstName.length > 50 || values.lastName.length > 50) throw new FormProblem('users.badName');
  return {
    login: values.login,
    firstName: values.firstName || null,
    lastName: values.lastName || null,
    email: values.email || null,
    langKey: LANGUAGES.includes(values.langKey) ? values.langKey : 'en',
    roles: values.roles.map((row, i) => roleInputOf(row, i + 1)),
  };
}

/** Whether `login` is the signed-in user's own (logins are stored lower-cased). */
const isSelf = (request: FastifyRequest, login: string) => login.toLowerCase() === principal(request).userName?.toLowerCase();

/**
 * The 403 page for deleting one's own account, which the page never offers (as the reference's
 * user list, which disables Delete on the signed-in user's row): it would end the session doing it
 * and could leave nobody to manage the users. The API's `DELETE /api/users/{login}` keeps the
 * reference's behaviour.
 */
function refuseSelf(request: FastifyRequest, login: string): void {
  if (isSelf(request, login)) throw new PageRefused(403, context(request).t('usersRights.deleteSelf'));
}

export interface UserPagesOptions {
  users: UserService;
  account: Pick<AccountService, 'requestActivationReset'>;
  projects: ProjectService;
  organizations: OrganizationService;
}

export const userRoutes: FastifyPluginAsyncTypebox<UserPagesOptions> = async (app, { users, account, projects, organizations }) => {
  /**
   * What the role rows offer (issue 31 item 11): the authorities and referents the signed-in user may
   * give, by the check the API makes when the form is posted (roles/checks.ts `mayChangeRole`:
   * ROLE.UPDATE on the role's project or organization, or a global role for a system admin role).
   * A row's current value stays offered, so saving a user keeps the roles it has.
   */
  async function roleChoices(request: FastifyRequest, rows: readonly RoleRow[]) {
    const auth = principal(request);
    const actor = actorOf(request);
    const ui = context(request);
    const { items } = await projects.list({ page: 0, size: 2_147_483_647 }, actor);
    // Without ORGANIZATION.READ anywhere the list is refused: then no organization can be offered.
    const orgs = await organizations.list(actor).catch((err: unknown) => {
      if (err instanceof AccessDenied) return [];
      throw err;
    });
    const role = (ref: Partial<RoleRef>): RoleRef => ({ id: 0, authorityName: '', projectId: null, organizationId: null, projectName: null, organizationName: null, projectOrganization: null, ...ref });
    const mayGlobal = mayChangeRole(auth, role({}));
    const current = new Set(rows.map((row) => row.referent));
    const organizationOptions = orgs
      .filter((o) => current.has(`organization:${o.name}`) || mayChangeRole(auth, role({ organizationName: o.name })))
      .map((o) => ({ value: `organization:${o.name}`, label: ui.t('users.organization', { name: o.name }) }));
    const projectOptions = (items as { projectName?: string | null; organizationName?: string | null; organization?: { name?: string } | null }[])
      .filter((p) => {
        const projectName = p.projectName ?? '';
        return current.has(`project:${projectName}`)
          || mayChangeRole(auth, role({ projectName, projectOrganization: p.organizationName ?? p.organization?.name ?? null }));
      })
      .map((p) => ({ value: `project:${p.projectName ?? ''}`, label: ui.t('users.project', { name: p.projectName ?? '' }) }));
    const scopes = new Set([...(mayGlobal ? ['GLOBAL'] : []), ...(organizationOptions.length > 0 ? ['ORGANIZATION'] : []), ...(projectOptions.length > 0 ? ['PROJECT'] : [])]);
    const held = new Set(rows.map((row) => row.authority));
    return {
      authorities: AUTHORITY_DTOS.filter((a) => scopes.has(a.scope) || held.has(a.name)).map((a) => a.name),
      referents: [...organizationOptions, ...projectOptions],
      /** The empty referent means "everywhere" only to who may give a global role. */
      mayGlobal,
    };
  }

  async function formPage(request: FastifyRequest, reply: FastifyReply, mode: 'create' | 'edit', values: FormValues, error: string | null, status = 200) {
    const ui = context(request);
    const title = mode === 'create' ? ui.t('users.createTitle') : ui.t('users.editTitle', { login: values.login });
    const action = mode === 'create' ? `${ui.base}/users/new` : `${ui.base}/users/${encodeURIComponent(values.login)}/edit`;
    const roleRows = [...values.roles, ...Array.from({ length: EMPTY_ROLE_ROWS }, () => ({ authority: '', referent: '' }))];
    return render(request, reply, 'users/form', {
      title, mode, action, values, roleRows, error, languages: LANGUAGES,
      ...await roleChoices(request, values.roles),
    }, status);
  }

  async function save(request: FastifyRequest, reply: FastifyReply, mode: 'create' | 'edit', body: UserFormT, existing?: UserDtoT) {
    const ui = context(request);
    const values = formValues(body);
    if (existing) values.login = existing.login;
    let input: ManagedUserInputT;
    try {
      input = inputOf(values);
    } catch (err) {
      if (err instanceof FormProblem) return formPage(request, reply, mode, values, ui.t(err.key, err.params), 400);
      throw err;
    }
    try {
      if (existing) await users.update(principal(request), { ...input, id: existing.id, activated: values.activated });
      else await users.create(principal(request), input);
    } catch (err) {
      const refusal = formRefusal(err);
      if (refusal) return formPage(request, reply, mode, values, refusal.message, refusal.status);
      throw err;
    }
    return reply.redirect(`${ui.base}/users`, 303);
  }

  app.get('/users', { schema: { ...schema, querystring: ListQuery } }, async (request, reply) => {
    requirePage(request, 'users');
    const ui = context(request);
    const pageNumber = request.query.page ?? 0;
    const filters = { login: request.query.login?.trim() ?? '', name: request.query.name?.trim() ?? '', email: request.query.email?.trim() ?? '' };
    const sort = request.query.sort ?? 'login,asc';
    // Ties (same name, same day) keep a stable order: then by login.
    const page = pageOf({ page: pageNumber, size: PAGE_SIZE, sort: [sort, 'login,asc'] }, USER_SORTS, PAGE_SIZE);
    const { users: list, total } = await users.list(principal(request), {
      login: filters.login || undefined, name: filters.name || undefined, email: filters.email || undefined,
    }, page);
    // Edit, Delete and "Send activation link" only for the users the service would let this user change.
    const auth = principal(request);
    const allowed = await users.changesAllowed(auth, list);
    const rows = list.map((user) => {
      const may = allowed.get(user.login) ?? { update: false, delete: false };
      return { ...user, mayUpdate: may.update, mayDelete: may.delete && !isSelf(request, user.login) };
    });
    const kept = Object.fromEntries(Object.entries(filters).filter(([, v]) => v !== ''));
    const url = (params: Record<string, string>) => `${ui.base}/users?${new URLSearchParams({ ...kept, ...params }).toString()}`;
    const link = (n: number) => url({ sort, page: String(n) });
    const [sortColumn, direction] = sort.split(',') as [string, 'asc' | 'desc'];
    // Each column's header: a link to sort by it (ascending, or the other way when it is the current one).
    const sortOf = (column: (typeof SORTABLE_COLUMNS)[number]) => ({
      href: url({ sort: `${column},${column === sortColumn && direction === 'asc' ? 'desc' : 'asc'}` }),
      aria: column === sortColumn ? (direction === 'asc' ? 'ascending' : 'descending') : null,
    });
    const columns = [
      { label: ui.t('users.login'), sort: sortOf('login') }, { label: ui.t('users.name'), sort: sortOf('lastName') },
      { label: ui.t('users.email'), sort: sortOf('email') }, { label: ui.t('users.activated'), sort: null }, { label: ui.t('users.roles'), sort: null },
      { label: ui.t('users.createdColumn'), sort: sortOf('createdDate') }, { label: ui.t('users.modifiedColumn'), sort: sortOf('lastModifiedDate') },
      { label: ui.t('users.actions'), sort: null },
    ];
    return render(request, reply, 'users/list', {
      title: ui.t('users.title'), users: rows, total, filters, columns, sort, mayCreate: hasScope(auth, 'USER.CREATE'), sent: request.query.sent ?? null, mail: request.query.mail ?? 'queued',
      shown: Math.min(total, page.offset + list.length),
      previous: pageNumber > 0 ? link(pageNumber - 1) : null,
      next: page.offset + list.length < total ? link(pageNumber + 1) : null,
    });
  });

  app.get('/users/new', { schema }, async (request, reply) => {
    authorizeScope(request, 'USER.CREATE');
    return formPage(request, reply, 'create', { login: '', firstName: '', lastName: '', email: '', langKey: 'en', activated: false, roles: [] }, null);
  });

  app.post('/users/new', { schema: { ...schema, body: UserForm } }, async (request, reply) => {
    authorizeScope(request, 'USER.CREATE');
    return save(request, reply, 'create', request.body);
  });

  app.get('/users/:login/edit', { schema: { ...schema, params: LoginParams } }, async (request, reply) => {
    authorizeScope(request, 'USER.UPDATE');
    return formPage(request, reply, 'edit', valuesOf(await users.getForChange(principal(request), request.params.login, 'USER.UPDATE')), null);
  });

  app.post('/users/:login/edit', { schema: { ...schema, params: LoginParams, body: UserForm } }, async (request, reply) => {
    authorizeScope(request, 'USER.UPDATE');
    return save(request, reply, 'edit', request.body, await users.getForChange(principal(request), request.params.login, 'USER.UPDATE'));
  });

  app.get('/users/:login/delete', { schema: { ...schema, params: LoginParams } }, async (request, reply) => {
    authorizeScope(request, 'USER.DELETE');
    refuseSelf(request, request.params.login);
    const ui = context(request);
    const { login } = await users.getForChange(principal(request), request.params.login, 'USER.DELETE');
    return render(request, reply, 'users/delete', { title: ui.t('users.deleteTitle', { login }), login });
  });

  app.post('/users/:login/delete', { schema: { ...schema, params: LoginParams, body: CsrfForm } }, async (request, reply) => {
    authorizeScope(request, 'USER.DELETE');
    refuseSelf(request, request.params.login);
    await users.remove(principal(request), request.params.login);
    return reply.redirect(`${context(request).base}/users`, 303);
  });

  app.post('/users/:login/activation', { schema: { ...schema, params: LoginParams, body: CsrfForm } }, async (request, reply) => {
    const { login } = request.params;
    const mail = await account.requestActivationReset(principal(request), login, request.log);
    return reply.redirect(`${context(request).base}/users?sent=${encodeURIComponent(login)}&mail=${mail}`, 303);
  });
};
