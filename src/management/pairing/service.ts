/**
 * App pairing (the reference's `MetaTokenService` and `OAuthClientsResource.getRefreshToken`,
 * managementportal.md §2.10, §5; clients.md §1.2, §1.4). An admin asks for a meta-token for a
 * subject and an app client; the app reads it once, without authentication, and gets a refresh
 * token of that client for the subject's user plus where to use it.
 *
 * Deviations from the reference:
 * - The client is checked when pairing: unknown, without `dynamic_registration` true or without
 *   the `refresh_token` grant is 400 `error.invalidClient` (the reference stored the token and
 *   failed with 500 when it was read).
 * - A one-time token is read once even under concurrent reads (one conditional UPDATE; the
 *   reference read, then wrote). The mint and the UPDATE share a transaction, so a failed mint
 *   leaves the token readable.
 * - Names come from `crypto.randomBytes` (the reference used `ThreadLocalRandom`).
 * - `baseUrl` of the token is the bare origin of MANAGEMENTPORTAL_COMMON_BASE_URL, whatever
 *   path or trailing slash the setting has (the questionnaire app takes the origin and appends
 *   `/managementportal/oauth/token`, clients.md §1.2).
 * - A project `Privacy-policy-url` that is not a URL falls back to the setting (the reference
 *   answered 500 `error.noValidPrivacyPolicyUrl`).
 */
import { randomBytes } from 'node:crypto';
import type { Database, Executor } from '../../platform/database.js';
import { recordInTx, type AuditLog } from '../audit/audit-log.js';
import type { EntityDetails } from '../authz/oracle.js';
import { AccessDenied, BadRequest, NotFound, RadarWebApplicationException } from '../errors.js';
import { isoInstant } from '../http/instants.js';
import { findClient } from '../oauth/clients/queries.js';
import { issueRefreshTokenForUser } from '../oauth/issue-for-user.js';
import type { TokenIssuer } from '../oauth/token-issuer.js';
import { PRIVACY_POLICY_URL } from '../api/projects/dto.js';
import { participantProjects } from '../api/subjects/queries.js';
import { subjectEntity, subjectNotFound } from '../api/subjects/shared.js';
import {
  claimMetaToken, deleteMetaToken, findMetaToken, findSubjectById, findSubjectByLogin, insertMetaToken, readableMetaTokensOfSubject, subjectLoginAndProjectAttributes,
} from './queries.js';
import { TOKEN_NAME, type ClientPairInfoDtoT, type PairQueryT, type TokenDtoT } from './schemas.js';
import type { OAuthClientRow } from '../schema.js';

const ENTITY = 'meta-token';
/** The reference's `SHORT_ID_LENGTH` and `LONG_ID_LENGTH`. */
export const SHORT_NAME_LENGTH = 8;
export const LONG_NAME_LENGTH = 16;
/** 64 characters, so one random byte masked to 6 bits picks one uniformly. */
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789.-';
/** Draws of a name before giving up (a collision among 64^8 names is already rare). */
const NAME_ATTEMPTS = 10;
/** The reference records a pairing chain as an authorization-code grant (managementportal.md §3.3). */
const PAIRING_GRANT = 'authorization_code';

export function newTokenName(length: number): string {
  let name = '';
  for (const byte of randomBytes(length)) name += ALPHABET[byte & 63];
  return name;
}

/** 410 `error.TokenCannotBeSent` (the reference's `RequestGoneException`). */
export class TokenGone extends RadarWebApplicationException {
  constructor(tokenName: string) {
    super(410, `Token ${tokenName} already fetched or expired. `, ENTITY, 'error.TokenCannotBeSent');
  }
}

const tokenNotFound = (tokenName: string) => new NotFound('Meta token not found with tokenName', ENTITY, 'error.tokenNotFound', { tokenName });
const invalidClient = (clientId: string, why: string) =>
  new BadRequest(`OAuth client ${clientId} ${why}`, 'oauthClient', 'error.invalidClient', { clientId });

/** Who asks: the signed-in user (undefined for a client-credentials token) and its permission check (403 when it fails). */
export interface PairingCaller {
  userName: string | undefined;
  /** The caller's address, for the audit trail. */
  address?: string | undefined;
  check(permission: string, entity: EntityDetails): void;
}

/** What pairing takes from the settings (management/settings.ts). */
export interface PairingSettings {
  /** `MANAGEMENTPORTAL_COMMON_MANAGEMENT_PORTAL_BASE_URL`: where the app reads its meta-token. */
  managementPortalBaseUrl: string;
  /** `MANAGEMENTPORTAL_COMMON_BASE_URL`: its origin is the token's `baseUrl`. */
  baseUrl: string;
  /** `MANAGEMENTPORTAL_COMMON_PRIVACY_POLICY_URL`: the default when a project names none. */
  privacyPolicyUrl: string;
  /** `MANAGEMENTPORTAL_OAUTH_META_TOKEN_TIMEOUT` in seconds. */
  metaTokenTimeoutSeconds: number;
  /** `MANAGEMENTPORTAL_OAUTH_PERSISTENT_META_TOKEN_TIMEOUT` in seconds. */
  persistentMetaTokenTimeoutSeconds: number;
}

export interface PairingDeps {
  db: Database;
  audit: AuditLog;
  /** Epoch milliseconds. */
  now: () => number;
  /** Mints the refresh tokens of read meta-tokens. */
  issuer: TokenIssuer;
  settings: PairingSettings;
}

export interface PairingService {
  /**
   * Creates a meta-token for the subject and client and audits `PAIR_CLIENT_REQUEST`.
   * @throws AccessDenied without a signed-in user or without SUBJECT.UPDATE on the subject;
   *   NotFound `error.subjectNotFound` (unknown subject, or none with an active project);
   *   BadRequest `error.invalidClient`
   */
  pair(caller: PairingCaller, query: PairQueryT): Promise<ClientPairInfoDtoT>;
  /**
   * Reads a token: marks a one-time token read and mints a new refresh-token chain, in one
   * transaction. A persistent token can be read until it expires (a new chain each time).
   * @throws NotFound `error.tokenNotFound`; TokenGone when read already or expired;
   *   BadRequest `error.invalidClient` when the client lost its `refresh_token` grant or was deleted (the token stays readable)
   */
  read(tokenName: string, ip?: string): Promise<TokenDtoT>;
  /**
   * Deletes a token (the pairing dialog does when it draws a new one).
   * @throws NotFound `error.tokenNotFound`; AccessDenied without SUBJECT.UPDATE on the subject or
   *   when the subject has no active project
   */
  remove(caller: PairingCaller, tokenName: string): Promise<void>;
  /**
   * The subject's meta-tokens an app can still read (the pairing codes handed out and not yet used
   * up), soonest expiry first, at most 100: client, persistence, creation and expiry, never the
   * token's name (it is the credential). @throws NotFound `error.subjectNotFound`; AccessDenied
   *   without SUBJECT.READ on the subject
   */
  readableTokens(caller: PairingCaller, login: string): Promise<ReadableMetaToken[]>;
  /** What the app receives: `baseUrl` (the platform's origin) and the base of its `tokenUrl`. */
  readonly addresses: { baseUrl: string; tokenUrlBase: string };
}

/** A meta-token as the subject page lists it. */
export interface ReadableMetaToken { clientId: string; persistent: boolean; createdAt: Date; expiryDate: Date }

/** The origin of a URL setting; the setting without trailing slashes when it is not a URL. */
function originOf(url: string): string {
  try {
    const origin = new URL(url).origin;
    if (origin !== 'null') return origin;
  } catch { /* not absolute: used as configured */ }
  return url.replace(/\/+$/, '');
}

function isUrl(value: string): boolean {
  try {
    new URL(value);
    return true;
  } catch {
    return false;
  }
}

const dynamicRegistration = (client: OAuthClientRow) => String(client.additionalInformation['dynamic_registration']).toLowerCase() === 'true';

export function createPairingService(deps: PairingDeps): PairingService {
  const { db, settings } = deps;
  const portalBaseUrl = settings.managementPortalBaseUrl.replace(/\/+$/, '');
  const platformOrigin = originOf(settings.baseUrl);

  async function createToken(tx: Executor, values: { subjectId: number; clientId: string; persistent: boolean; expiryDate: Date; createdAt: Date }): Promise<string> {
    const length = values.persistent ? LONG_NAME_LENGTH : SHORT_NAME_LENGTH;
    for (let attempt = 0; attempt < NAME_ATTEMPTS; attempt++) {
      const tokenName = newTokenName(length);
      if (await insertMetaToken(tx, { ...values, tokenName })) return tokenName;
    }
    throw new Error(`no free meta-token name after ${NAME_ATTEMPTS} attempts`);
  }

  return {
    addresses: { baseUrl: platformOrigin, tokenUrlBase: portalBaseUrl },
    async pair(caller, query) {
      const { login, clientId } = query;
      if (caller.userName === undefined) throw new AccessDenied('You must be a logged in user to access this resource');
      const subject = await findSubjectByLogin(db, login);
      if (!subject) throw subjectNotFound();
      const { active } = await participantProjects(db, subject.userId);
      if (!active) throw subjectNotFound(`Project for subject ${login} not found`);
      caller.check('SUBJECT.UPDATE', subjectEntity(login, active));

      const client = await findClient(db, clientId);
      if (!client) throw invalidClient(clientId, 'does not exist');
      if (!dynamicRegistration(client)) throw invalidClient(clientId, 'does not allow dynamic registration');
      if (!client.authorizedGrantTypes.includes('refresh_token')) throw invalidClient(clientId, 'does not have the refresh_token grant');

      const persistent = query.persistent?.toLowerCase() === 'true';
      const timeoutSeconds = persistent ? settings.persistentMetaTokenTimeoutSeconds : settings.metaTokenTimeoutSeconds;
      const createdAt = new Date(deps.now());
      const expiryDate = new Date(createdAt.getTime() + timeoutSeconds * 1000);
      const userName = caller.userName;
      // The token and its events commit together (issue 31 item 8: a change's events are written in its transaction).
      const tokenName = await db.transaction(async (tx) => {
        const name = await createToken(tx, { subjectId: subject.subjectId, clientId, persistent, expiryDate, createdAt });
        await recordInTx(tx, [
          { principal: userName, type: 'PAIR_CLIENT_REQUEST', address: caller.address, target: { type: 'subject', id: login }, data: { client_id: clientId, subject_login: login } },
          {
            principal: userName, type: 'META_TOKEN_CREATED', address: caller.address, target: { type: 'subject', id: login },
            data: { clientId, persistent: String(persistent), expiresAt: expiryDate.toISOString() },
          },
        ], createdAt);
        return name;
      });
      return {
        tokenName,
        tokenUrl: `${portalBaseUrl}/api/meta-token/${encodeURIComponent(tokenName)}`,
        baseUrl: portalBaseUrl,
        timeout: timeoutSeconds * 1000,
        timesOutAt: isoInstant(expiryDate)!,
      };
    },

    async read(tokenName, ip) {
      if (!TOKEN_NAME.test(tokenName)) throw tokenNotFound(tokenName);
      const now = new Date(deps.now());
      const body = await db.transaction(async (tx) => {
        const claimed = await claimMetaToken(tx, tokenName, now);
        if (!claimed) return undefined;
        const subject = await subjectLoginAndProjectAttributes(tx, claimed.subjectId);
        const client = await findClient(tx, claimed.clientId);
        // Thrown inside the transaction: the token is not marked read.
        if (!client) throw invalidClient(claimed.clientId, 'does not exist');
        if (!client.authorizedGrantTypes.includes('refresh_token')) throw invalidClient(claimed.clientId, 'does not have the refresh_token grant');
        // The subject row exists (its token references it), hence its user.
        const refreshToken = await issueRefreshTokenForUser(tx, deps.issuer, { login: subject!.login, client, grantType: PAIRING_GRANT });
        if (!refreshToken) throw new Error('meta-token subject without user');
        // The reader is the app that scanned the code (no principal): the subject's login stands for it.
        await recordInTx(tx, {
          principal: subject!.login, type: 'META_TOKEN_READ', address: ip, target: { type: 'subject', id: subject!.login }, data: { clientId: client.clientId },
        }, now);
        const projectPolicy = subject!.attributes?.[PRIVACY_POLICY_URL]?.trim();
        return {
          refreshToken,
          baseUrl: platformOrigin,
          privacyPolicyUrl: projectPolicy && isUrl(projectPolicy) ? projectPolicy : settings.privacyPolicyUrl,
        };
      });
      if (body) return body;
      if (!(await findMetaToken(db, tokenName))) throw tokenNotFound(tokenName);
      throw new TokenGone(tokenName);
    },

    async readableTokens(caller, login) {
      const subject = await findSubjectByLogin(db, login);
      if (!subject) throw subjectNotFound();
      const { associated } = await participantProjects(db, subject.userId);
      caller.check('SUBJECT.READ', subjectEntity(login, associated));
      return readableMetaTokensOfSubject(db, subject.subjectId, new Date(deps.now()));
    },

    async remove(caller, tokenName) {
      if (!TOKEN_NAME.test(tokenName)) throw tokenNotFound(tokenName);
      const token = await findMetaToken(db, tokenName);
      if (!token) throw tokenNotFound(tokenName);
      const subject = await findSubjectById(db, token.subjectId);
      const active = subject ? (await participantProjects(db, subject.userId)).active : undefined;
      if (!subject || !active) throw new AccessDenied('Cannot establish authority of subject without active project affiliation.');
      caller.check('SUBJECT.UPDATE', subjectEntity(subject.login, active));
      await deleteMetaToken(db, token.id);
    },
  };
}
