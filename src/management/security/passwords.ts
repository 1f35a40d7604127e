/**
 * The one owner of password and client-secret hashing. bcrypt runs natively on libuv's thread
 * pool (`@node-rs/bcrypt`), never on the event loop: a flood of sign-ins (about 50 ms of CPU
 * each) used to stall every other request, health probes included.
 *
 * Hashes from the reference (`$2a$`, Spring's `BCryptPasswordEncoder`), from bcryptjs (`$2b$`)
 * and from PHP-style tools (`$2y$`) all verify; new hashes are `$2b$`.
 */
import { hash, verify } from '@node-rs/bcrypt';

/** Spring's `BCryptPasswordEncoder` default strength, as the reference hashes with. */
export const BCRYPT_COST = 10;

/**
 * bcrypt (cost 10) of a random string: what a password is compared against when there is no
 * stored hash (unknown user, account without a password), so the answer takes as long as a real
 * comparison and its timing does not tell which logins exist.
 */
const DUMMY_HASH = '$2b$10$O7wEFT30rQqPJHoQ64eCrO2R1nLGilJtP2IqAgpO7bf0ewJr7e5Ga';

/** The bcrypt hash (cost `BCRYPT_COST`) to store for a password or client secret. */
export const hashPassword = (password: string): Promise<string> => hash(password, BCRYPT_COST);

/**
 * Whether `password` matches `storedHash`. Without a stored hash it still costs one comparison
 * (against a dummy hash) and answers false. A malformed stored hash answers false.
 */
export async function verifyPassword(password: string, storedHash: string | null | undefined): Promise<boolean> {
  const ok = await verify(password, storedHash || DUMMY_HASH);
  return ok && !!storedHash;
}
