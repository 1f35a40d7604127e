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

export async function ensureBuiltInAccounts(
  db: Executor,
  settings: { profile: 'dev' | 'prod'; adminPassword: string | undefined },
  log: FastifyBaseLogger,
): Promise<void> {
  // Before anything is written: set explicitly, the dev default is as unsafe as when left unset.
  if (settings.profile === 'prod' && settings.adminPassword === DEV_ADMIN_PASSWORD) {
    throw new Error(`${SETTING}: the dev default "admin" is not allowed in the prod profile; set a password of your own`);
  }
  await insertAuthorities(db, AUTHORITIES);
  await ensureOrganization(db, { name: 'main', description: 'The main organization', location: '-' });
  const password = settings.adminPassword || (settings.profile === 'dev' ? DEV_ADMIN_PASSWORD : undefined);
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
    if (await verifyPassword(password, await findServerSecret(db, APPLIED))) return;
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
