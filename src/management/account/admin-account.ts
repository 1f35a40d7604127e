/**
 * The built-in accounts and authorities that exist from the first start (managementportal.md §9):
 * the eight authorities, organization `main`, and user `admin` with ROLE_SYS_ADMIN.
 *
 * `MANAGEMENTPORTAL_COMMON_ADMIN_PASSWORD` (dev default `admin`) seeds the admin's password, and is
 * applied again only when its value changes: a hash of the value last applied is kept (server
 * secret `admin-password-applied`), so a password changed in the UI or the API survives restarts,
 * and changing the setting is how a forgotten admin password is recovered. The prod profile
 * refuses to start while it is unset and the admin account is new or still has the password
 * `admin`, and when it is set to `admin`.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Executor } from '../../platform/database.js';
import { AUTHORITIES } from '../authz/permissions.js';
import { hashPassword, verifyPassword } from '../security/passwords.js';
import { addRole, ensureOrganization, globalRoleId, insertAuthorities, insertUser, setPasswordHash } from '../api/users/queries.js';
import { findUserByLogin } from '../security/queries.js';
import { findServerSecret, upsertServerSecret } from '../session/queries.js';

export const ADMIN_LOGIN = 'admin';
const DEV_ADMIN_PASSWORD = 'admin';
const SETTING = 'MANAGEMENTPORTAL_COMMON_ADMIN_PASSWORD';
/** The server secret holding a hash of the setting's value last applied. */
const APPLIED = 'admin-password-applied';

type AdminPasswordSettings = { profile: 'dev' | 'prod'; adminPassword: string | undefined };

/** Whether the setting's value matches a hash of the value last applied, checked (or being checked) ahead. */
export interface AppliedPasswordCheck {
  /** The applied hash that was read. */
  hash: string;
  matches: Promise<boolean>;
}

/** Before anything is written: set explicitly, the dev default is as unsafe as when left unset. */
function refuseDevPasswordInProd(settings: AdminPasswordSettings): void {
  if (settings.profile === 'prod' && settings.adminPassword === DEV_ADMIN_PASSWORD) {
    throw new Error(`${SETTING}: the dev default "admin" is not allowed in the prod profile; set a password of your own`);
  }
}

const passwordOf = (settings: AdminPasswordSettings) => settings.adminPassword || (settings.profile === 'dev' ? DEV_ADMIN_PASSWORD : undefined);

/**
 * Reads the hash of the value last applied and starts comparing the setting with it (bcrypt, ~50 ms
 * on libuv's pool), so that the comparison runs while the caller does other work (the management
 * plugin registers its routes) instead of holding up `ensureBuiltInAccounts`, which uses it when the
 * hash it reads under the start-up lock is still the same. Undefined when there is nothing to check.
 * Throws, before anything is written, when the prod profile is given the dev default.
 */
export async function startAdminPasswordCheck(db: Executor, settings: AdminPasswordSettings): Promise<AppliedPasswordCheck | undefined> {
  refuseDevPasswordInProd(settings);
  const password = passwordOf(settings);
  const hash = password ? await findServerSecret(db, APPLIED) : undefined;
  if (!password || !hash) return undefined;
  const matches = verifyPassword(password, hash);
  // Only so that a failure is not reported as unhandled before it is awaited (or if it never is).
  matches.catch(() => {});
  return { hash, matches };
}

/**
 * Creates or updates the built-in accounts (call under the start-up lock). `appliedCheck`:
 * `startAdminPasswordCheck`'s result, when the caller started it ahead.
 */
export async function ensureBuiltInAccounts(
  db: Executor,
  settings: AdminPasswordSettings,
  log: FastifyBaseLogger,
  appliedCheck?: AppliedPasswordCheck,
): Promise<void> {
  refuseDevPasswordInProd(settings);
  await insertAuthorities(db, AUTHORITIES);
  await ensureOrganization(db, { name: 'main', description: 'The main organization', location: '-' });
  const password = passwordOf(settings);
  const existing = await findUserByLogin(db, ADMIN_LOGIN);

  if (!existing) {
    if (!password) throw new Error(`${SETTING}: required in the prod profile to create the admin account`);
    const admin = await insertUser(db, {
      login: ADMIN_LOGIN, passwordHash: await hashPassword(password), activated: true,
      email: 'admin@localhost', firstName: 'Administrator', lastName: 'Administrator', langKey: 'en',
    });
    await addRole(db, admin.id, await globalRoleId(db, 'ROLE_SYS_ADMIN'));
    await upsertServerSecret(db, APPLIED, await hashPassword(password));
    log.info({ login: ADMIN_LOGIN }, 'admin account created');
    return;
  }
  if (password) {
    // The value last applied: the admin may have changed the password since, and keeps it.
    const applied = await findServerSecret(db, APPLIED);
    // Another instance may have applied a new value since the check ahead read the hash: then check again.
    if ((applied && appliedCheck?.hash === applied) ? await appliedCheck.matches : await verifyPassword(password, applied)) return;
    if (!(await verifyPassword(password, existing.passwordHash))) {
      await setPasswordHash(db, existing.id, await hashPassword(password));
      log.info({ login: ADMIN_LOGIN, setting: SETTING }, 'admin password set from the setting (its value changed)');
    }
    await upsertServerSecret(db, APPLIED, await hashPassword(password));
    return;
  }
  if (await verifyPassword(DEV_ADMIN_PASSWORD, existing.passwordHash)) {
    throw new Error(`${SETTING}: the admin account still has the default password "admin"; set a new one (required in the prod profile)`);
  }
}
