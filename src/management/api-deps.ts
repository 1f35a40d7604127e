/** What the management API's route plugins get (api.ts registers them). */
import type { Config } from '../config.js';
import type { Database } from '../platform/database.js';
import type { Mailer } from '../platform/mail.js';
import type { AuditLog } from './audit/audit-log.js';
import type { AccountMail } from './mail/account-mail.js';

export interface ManagementApiDeps {
  db: Database;
  audit: AuditLog;
  /** Epoch milliseconds (tests move time). */
  now: () => number;
  profile: 'dev' | 'prod';
  /** `ProjectDTO.persistentTokenTimeout` in ms (the persistent meta-token lifetime). */
  persistentTokenTimeoutMs: number;
  /** `/api/sitesettings` `hiddenSubjectFields`. */
  hiddenSubjectFields: readonly string[];
  /** Every setting (base URLs, meta-token timeouts, mail sender, …). */
  config: Config;
  mail: Mailer;
  /** Account e-mails (creation, password reset), sent after commit with retries. */
  accountMail: AccountMail;
}
