/**
 * The account e-mails of managementportal.md §11, in English: the creation mail (new account, or
 * a new activation link) and the password-reset mail. Each is plain text plus an HTML
 * alternative; the wording follows the reference's `messages_en.properties`. Both link to the
 * admin UI's reset page, `{MANAGEMENTPORTAL_COMMON_MANAGEMENT_PORTAL_BASE_URL}/account/reset/finish?key=`
 * (the reference's Angular app had `#/reset/finish?key=`; the UI's script forwards such links
 * from mails sent before).
 * Pure functions: nothing here sends or logs.
 */
import type { MailMessage } from '../../platform/mail.js';

export interface MailSettings {
  /** `MANAGEMENTPORTAL_MAIL_FROM`. */
  from: string;
  /** `MANAGEMENTPORTAL_COMMON_MANAGEMENT_PORTAL_BASE_URL`. */
  managementPortalBaseUrl: string;
  /** `MANAGEMENTPORTAL_COMMON_ACTIVATION_KEY_TIMEOUT_IN_SECONDS`: how long the link works. */
  keyTimeoutSeconds: number;
}

/** The recipient of an account mail. */
export interface MailUser {
  login: string;
  email: string;
  resetKey: string;
  firstName?: string | null;
}

export const CREATION_SUBJECT = 'Your account has been created in ManagementPortal from RADAR-Base.';
export const RESET_SUBJECT = 'ManagementPortal password reset';
const SIGNATURE = 'ManagementPortal Team.';

/** The admin UI's page that sets a password with a reset key. */
export function resetLink(baseUrl: string, resetKey: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/account/reset/finish?key=${encodeURIComponent(resetKey)}`;
}

/**
 * "24 hours", "1 hour", or minutes when the timeout is not whole hours (the reference divided by
 * 3600 and so promised "0 hours" for a timeout under an hour).
 */
export function expiryText(seconds: number): string {
  if (seconds % 3600 === 0) return seconds === 3600 ? '1 hour' : `${seconds / 3600} hours`;
  const minutes = Math.ceil(seconds / 60);
  return minutes === 1 ? '1 minute' : `${minutes} minutes`;
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** One mail from paragraphs; a paragraph `{ link }` is the call to action. */
type Paragraph = string | { link: string };

function compose(settings: MailSettings, to: string, subject: string, paragraphs: readonly Paragraph[]): MailMessage {
  const text = paragraphs.map((p) => (typeof p === 'string' ? p : p.link)).join('\n\n');
  const body = paragraphs.map((p) => (typeof p === 'string'
    ? `<p>${escapeHtml(p).replaceAll('\n', '<br>')}</p>`
    : `<p><a href="${escapeHtml(p.link)}">${escapeHtml(p.link)}</a></p>`)).join('\n');
  const html = `<!DOCTYPE html>\n<html lang="en">\n<head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head>\n<body>\n${body}\n</body>\n</html>\n`;
  return { from: settings.from, to, subject, text: `${text}\n`, html };
}

const greeting = (user: MailUser) => `Dear ${user.firstName?.trim() || user.login},`;

/** The mail a new (or not yet activated) account gets: the link sets the first password. */
export function creationMail(settings: MailSettings, user: MailUser): MailMessage {
  return compose(settings, user.email, CREATION_SUBJECT, [
    greeting(user),
    'Your ManagementPortal account has been created by RADAR-base team.\nPlease click on the link below to activate your account by resetting your password:',
    { link: resetLink(settings.managementPortalBaseUrl, user.resetKey) },
    `Your username is: ${user.login}\nPlease note that this link will expire in ${expiryText(settings.keyTimeoutSeconds)} from the time it is sent.\nFor security reasons this link can only be used once to successfully reset the password.`,
    `Regards,\n${SIGNATURE}`,
  ]);
}

/** The mail of `reset_password/init`. */
export function passwordResetMail(settings: MailSettings, user: MailUser): MailMessage {
  return compose(settings, user.email, RESET_SUBJECT, [
    greeting(user),
    'For your ManagementPortal account a password reset was requested, please click on the link below to reset it:',
    { link: resetLink(settings.managementPortalBaseUrl, user.resetKey) },
    `Please note that this link will expire in ${expiryText(settings.keyTimeoutSeconds)} from the time it is sent and can only be used once. If you did not ask for a new password, you can ignore this e-mail.`,
    `Regards,\n${SIGNATURE}`,
  ]);
}
