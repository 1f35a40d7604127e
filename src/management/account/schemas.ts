/** Request schemas of the account endpoints (managementportal.md §2.1); the reply is the users API's `UserDto`. */
import { Type, type Static } from 'typebox';
import { nullable } from '../../platform/schemas.js';

/** `Constants.ENTITY_ID_REGEX` of the reference. */
const ENTITY_ID = "^[_'.@A-Za-z0-9- ]*$";
const nullableString = (opts: { minLength?: number; maxLength: number; format?: string }) => Type.Optional(nullable(Type.String(opts)));

/**
 * The `UserDTO` the admin UI posts to `/api/account`: only names, e-mail and language are used;
 * every other field (id, roles, activation, provenance) is ignored. Absent or null clears a field,
 * as in the reference.
 */
export const AccountInput = Type.Object({
  login: Type.Optional(Type.String({ pattern: ENTITY_ID, minLength: 1, maxLength: 50, description: 'Ignored: the signed-in user is updated' })),
  firstName: nullableString({ maxLength: 50 }),
  lastName: nullableString({ maxLength: 50 }),
  email: nullableString({ format: 'email', minLength: 5, maxLength: 100 }),
  langKey: nullableString({ minLength: 2, maxLength: 5 }),
}, { additionalProperties: false, description: 'UserDTO of the signed-in user (names, e-mail, language)' });
export type AccountInputT = Static<typeof AccountInput>;

/**
 * A raw `text/plain` body (the reference's `@RequestBody String`). A JSON string (`"…"`) is
 * accepted too.
 */
const rawText = (description: string, maxLength: number) => Type.String({ minLength: 1, maxLength, description });

/** The new password; its length is checked by the strength rules (`error.longPassword`), not here. */
export const PasswordBody = rawText('The new password, as plain text: 8–100 characters with an upper-case letter, a lower-case letter and a digit', 10_000);
export const LoginBody = rawText('The login of the user, as plain text', 255);
export const EmailBody = rawText('The e-mail address of the user, as plain text', 255);

/** `KeyAndPasswordVM`. */
export const KeyAndPassword = Type.Object({
  key: Type.String({ minLength: 1, maxLength: 100, description: 'The reset key from the e-mail link' }),
  newPassword: Type.String({ minLength: 1, maxLength: 10_000, description: '8–100 characters with an upper-case letter, a lower-case letter and a digit' }),
}, { additionalProperties: false, description: 'KeyAndPasswordVM' });
export type KeyAndPasswordT = Static<typeof KeyAndPassword>;

export const ActivateQuery = Type.Object({
  key: Type.String({ minLength: 1, maxLength: 100, description: 'The activation key' }),
});

export const NoContent = Type.Null({ description: 'No content' });
