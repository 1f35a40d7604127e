/**
 * Use cases of the account endpoints (the reference's `AccountResource` + `UserService`,
 * managementportal.md §2.1): the signed-in user's own account, password changes, and the
 * reset-key flows behind the creation and password-reset mails. Each change records a user
 * revision in its transaction; mails are queued only after that transaction has committed
 * (mail/account-mail.ts), so a mail failure never undoes a change.
 *
 * Deviations from the reference:
 * - Quirk 8 fixed: a bad or expired reset key is 400 `error.invalidResetKey`, not an empty 500;
 *   password strength counts `Z`, `z` and `9` (security/password-rules.ts).
 * - `reset-activation/init` needs USER.UPDATE on every scope the user holds a role in (the
 *   reference let any signed-in principal replace anyone's pending activation link) and refuses an activated user with 400
 *   (the reference mailed it a link with a null key).
 * - `POST /api/account` checks USER.UPDATE on the signed-in user it updates, not on the login
 *   in the body (which it ignores, as the reference did when updating).
 */
import type { FastifyBaseLogger } from 'fastify';
import { BadRequest, Conflict, Forbidden, NotFound } from '../errors.js';
import { isUniqueViolation, type Database, type Executor } from '../../platform/database.js';
import type { AccountMail, MailOutcome } from '../mail/account-mail.js';
import { recordRevision } from '../api/revisions/queries.js';
import { requirePermission, requireUserChange } from '../api/roles/checks.js';
import { roleRefsOfUsers } from '../api/roles/queries.js';
import type { MpAuth } from '../security/principal.js';
import { endCredentialsOfUser } from '../oauth/user-credentials.js';
import { hashPassword } from '../security/passwords.js';
import type { UserDtoT } from '../api/users/schemas.js';
import { loadUserDtos } from '../api/users/queries.js';
import { findUserByLogin } from '../security/queries.js';
import { checkPasswordStrength, generateResetKey, isResetKeyShaped } from '../security/password-rules.js';
import { activateByKey, completePasswordReset, findActivatedUserByEmail, otherUserWithEmail, resetKeyIsValid, updateUser } from './queries.js';
import type { AccountInputT, KeyAndPasswordT } from './schemas.js';
import type { UserRow } from '../schema.js';
import { recordInTx, type AuditEvent } from '../audit/audit-log.js';

const ENTITY = 'userManagement';
/** The reference's auditor for changes nobody signed in made (`Constants.SYSTEM_ACCOUNT`). */
const SYSTEM = 'system';

export interface AccountServiceDeps {
  db: Database;
  /** Epoch milliseconds. */
  now: () => number;
  /** Account e-mails (creation, password reset), sent after commit with retries. */
  accountMail: AccountMail;
  /** `MANAGEMENTPORTAL_COMMON_ACTIVATION_KEY_TIMEOUT_IN_SECONDS`: how long a reset key works. */
  activationKeyTimeoutSeconds: number;
}

export interface AccountService {
  /** The signed-in user's `UserDTO`. @throws Forbidden `error.accessDenied` without a user (client credentials) */
  get(actor: MpAuth): Promise<UserDtoT>;
  /**
   * Sets the signed-in user's names, e-mail and language.
   * @throws Forbidden without a user; AccessDenied without USER.UPDATE; Conflict `error.emailexists`
   */
  update(actor: MpAuth, input: AccountInputT): Promise<void>;
  /**
   * Sets the signed-in user's password and, in the same transaction, signs the user out
   * everywhere else: every sign-in session but the actor's own (`actor.sessionId`, when the change
   * came through the admin UI's session) and every refresh-token chain, the caller's included.
   * @throws Forbidden without a user; BadRequest `error.weakPassword` / `error.longPassword`
   */
  changePassword(actor: MpAuth, password: string): Promise<void>;
  /**
   * A new activation link for a user that is not activated yet: new reset key, creation mail.
   * @throws BadRequest `error.emailNotRegistered` (unknown or already activated); AccessDenied without USER.UPDATE on it
   */
  requestActivationReset(actor: MpAuth, login: string, log: FastifyBaseLogger): Promise<MailOutcome>;
  /**
   * A password-reset link for the activated user with this e-mail address: new reset key, reset mail.
   * @throws BadRequest `error.emailNotRegistered`
   */
  requestPasswordReset(email: string, log: FastifyBaseLogger): Promise<void>;
  /**
   * Sets the password with a reset key (single use, valid for the activation-key timeout),
   * activates the account, and ends every sign-in session and refresh-token chain of the user
   * (same transaction).
   * @throws BadRequest `error.weakPassword` / `error.longPassword` / `error.invalidResetKey`
   */
  /** `address`: where the key's holder came from (`request.ip`), for the audit event. */
  finishPasswordReset(input: KeyAndPasswordT, address?: string): Promise<void>;
  /** @throws NotFound `error.entityNotFound` for an unknown activation key */
  activate(key: string): Promise<void>;
}

export function createAccountService(deps: AccountServiceDeps): AccountService {
  const { db } = deps;
  const now = () => new Date(deps.now());
  const keyTimeoutMs = deps.activationKeyTimeoutSeconds * 1000;

  async function signedInUser(actor: MpAuth): Promise<UserRow> {
    const user = actor.userName !== undefined ? await findUserByLogin(db, actor.userName) : undefined;
    if (!user) throw new Forbidden('Cannot get account without user', ENTITY, 'error.accessDenied');
    return user;
  }

  /** Records the user's state after a change (call inside the change's transaction). */
  async function recordChange(tx: Executor, author: string, row: UserRow, at: Date): Promise<void> {
    const [dto] = await loadUserDtos(tx, [row]);
    await recordRevision(tx, author, [{ entityType: 'user', entityId: row.id, entityKey: row.login, revisionType: 'MOD', entity: dto! }], at);
  }

  /** Stores a new reset key (now) and returns the updated row; the caller mails after commit. */
  async function newResetKey(user: UserRow, author: string, audit?: AuditEvent): Promise<UserRow & { resetKey: string }> {
    const at = now();
    const resetKey = generateResetKey();
    const row = await db.transaction(async (tx) => {
      const updated = await updateUser(tx, user.id, { resetKey, resetDate: at, lastModifiedBy: author, lastModifiedDate: at });
      if (!updated) throw notRegistered(user.login);
      await recordChange(tx, author, updated, at);
      if (audit) await recordInTx(tx, audit, at);
      return updated;
    });
    return { ...row, resetKey };
  }

  const notRegistered = (login: string) =>
    new BadRequest(`Cannot find a deactivated user with login ${login}`, ENTITY, 'error.emailNotRegistered');
  const emailExists = (email: string) =>
    new Conflict(`Email address ${email} already in use`, ENTITY, 'error.emailexists', { email });
  const invalidKey = () => new BadRequest('Reset key invalid or expired', ENTITY, 'error.invalidResetKey');

  return {
    async get(actor) {
      const [dto] = await loadUserDtos(db, [await signedInUser(actor)]);
      return dto!;
    },

    async update(actor, input) {
      const user = await signedInUser(actor);
      requirePermission(actor, 'USER.UPDATE', { user: user.login });
      const email = input.email ?? null;
      if (email !== null && await otherUserWithEmail(db, email, user.id)) throw emailExists(email);
      const at = now();
      try {
        await db.transaction(async (tx) => {
          const row = await updateUser(tx, user.id, {
            firstName: input.firstName ?? null, lastName: input.lastName ?? null, email, langKey: input.langKey ?? null,
            lastModifiedBy: user.login, lastModifiedDate: at,
          });
          await recordChange(tx, user.login, row!, at);
        });
      } catch (err) {
        // Another account took the address between the check and the update.
        if (email !== null && isUniqueViolation(err)) throw emailExists(email);
        throw err;
      }
    },

    async changePassword(actor, password) {
      const user = await signedInUser(actor);
      checkPasswordStrength(password);
      const passwordHash = await hashPassword(password);
      const at = now();
      await db.transaction(async (tx) => {
        const row = await updateUser(tx, user.id, { passwordHash, lastModifiedBy: user.login, lastModifiedDate: at });
        await endCredentialsOfUser(tx, user.login, at, actor.sessionId);
        await recordChange(tx, user.login, row!, at);
        await recordInTx(tx, { principal: user.login, type: 'PASSWORD_CHANGED', address: actor.address, target: { type: 'user', id: user.login }, data: {} }, at);
      });
    },

    async requestActivationReset(actor, rawLogin, log) {
      const login = rawLogin.trim().toLowerCase();
      const user = await findUserByLogin(db, login);
      if (!user) throw notRegistered(login);
      requireUserChange(actor, 'USER.UPDATE', user.login, await roleRefsOfUsers(db, [user.id]));
      if (user.activated) throw notRegistered(login);
      const author = actor.userName ?? actor.clientId ?? SYSTEM;
      // Recorded with the new key, and only when a mail will go: the mail is handed to the mail
      // transport right after the commit.
      const outcome = deps.accountMail.outcome(user);
      const row = await newResetKey(user, author, outcome === 'queued' ? {
        principal: author, type: 'ACTIVATION_MAIL_SENT', address: actor.address, target: { type: 'user', id: user.login }, data: { login: user.login },
      } : undefined);
      return deps.accountMail.creation(row, log);
    },

    async requestPasswordReset(email, log) {
      const user = await findActivatedUserByEmail(db, email.trim());
      if (!user) throw new BadRequest('email address not registered', ENTITY, 'error.emailNotRegistered');
      const row = await newResetKey(user, SYSTEM);
      deps.accountMail.passwordReset(row, log);
    },

    async finishPasswordReset({ key, newPassword }, address) {
      checkPasswordStrength(newPassword);
      const issuedAfter = new Date(deps.now() - keyTimeoutMs);
      // Unknown keys are refused before the (deliberately slow) hashing, which strangers could otherwise make us do at will.
      if (!isResetKeyShaped(key) || !await resetKeyIsValid(db, key, issuedAfter)) throw invalidKey();
      const passwordHash = await hashPassword(newPassword);
      const at = now();
      await db.transaction(async (tx) => {
        // Checked again in the update itself: of two uses of one key, only one gets here.
        const row = await completePasswordReset(tx, key, issuedAfter, { passwordHash, lastModifiedBy: SYSTEM, lastModifiedDate: at });
        if (!row) throw invalidKey();
        await endCredentialsOfUser(tx, row.login, at);
        await recordChange(tx, SYSTEM, row, at);
        // The actor is the holder of the user's reset key: the user.
        await recordInTx(tx, { principal: row.login, type: 'PASSWORD_RESET', address, target: { type: 'user', id: row.login }, data: {} }, at);
      });
    },

    async activate(key) {
      const at = now();
      await db.transaction(async (tx) => {
        const row = await activateByKey(tx, key, { lastModifiedBy: SYSTEM, lastModifiedDate: at });
        // The key is not echoed: it is a credential.
        if (!row) throw new NotFound('User with activation key not found', ENTITY, 'error.entityNotFound');
        await recordChange(tx, SYSTEM, row, at);
      });
    },
  };
}
