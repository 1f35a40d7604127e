/**
 * Whether two secrets are equal, compared in constant time (node-oidc-provider's
 * `constant_equals`): for CSRF tokens, PKCE challenges and request ids, whose comparison must not
 * tell a guesser how many leading characters were right. Different lengths answer false at once;
 * the length of these values is no secret.
 */
import { timingSafeEqual } from 'node:crypto';

export function constantEquals(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
