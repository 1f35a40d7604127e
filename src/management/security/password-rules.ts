/**
 * Password rules and reset keys (the reference's `PasswordService`, managementportal.md §2.1).
 *
 * Reference bug fixed (§15 quirk 8): its range check excluded the last letter and digit, so `Z`,
 * `z` and `9` did not count as upper case, lower case or digit; here they do.
 */
import { randomInt } from 'node:crypto';
import { BadRequest } from '../errors.js';

const ENTITY = 'userManagement';
export const MIN_PASSWORD_LENGTH = 8;
export const MAX_PASSWORD_LENGTH = 100;

/** Whether `password` has 8+ characters with an upper-case letter, a lower-case letter and a digit. */
export function isWeakPassword(password: string): boolean {
  return [...password].length < MIN_PASSWORD_LENGTH || !/[A-Z]/.test(password) || !/[a-z]/.test(password) || !/[0-9]/.test(password);
}

/**
 * `PasswordService.checkPasswordStrength`.
 * @throws BadRequest `error.weakPassword` (too short or too little variety), `error.longPassword` (over 100 characters)
 */
export function checkPasswordStrength(password: string): void {
  if (isWeakPassword(password)) {
    throw new BadRequest('Weak password. Use a password with more variety of numeric, alphabetical and symbol characters.', ENTITY, 'error.weakPassword');
  }
  if ([...password].length > MAX_PASSWORD_LENGTH) throw new BadRequest('Password too long', ENTITY, 'error.longPassword');
}

/** `PasswordService.generateResetKey`: 20 random digits (about 66 bits). */
export const generateResetKey = (): string => Array.from({ length: 20 }, () => String(randomInt(10))).join('');

/** Whether `key` looks like a reset key at all (a cheap refusal before any database look-up). */
export const isResetKeyShaped = (key: string): boolean => /^\d{20}$/.test(key);
