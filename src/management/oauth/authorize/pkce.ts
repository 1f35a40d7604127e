/** PKCE (RFC 7636): only S256 is accepted; `plain` protects nothing a TLS client needs. */
import { createHash } from 'node:crypto';
import { constantEquals } from '../../../platform/constant-equals.js';

/** `code_challenge` and `code_verifier` share this alphabet and length (RFC 7636 §4.1, §4.2). */
const PKCE_VALUE = /^[A-Za-z0-9._~-]{43,128}$/;

export const isPkceValue = (value: string): boolean => PKCE_VALUE.test(value);

/** Whether `verifier` hashes to `challenge` (S256), compared in constant time. */
export function verifyS256(challenge: string, verifier: string): boolean {
  if (!isPkceValue(verifier)) return false;
  return constantEquals(createHash('sha256').update(verifier).digest('base64url'), challenge);
}
