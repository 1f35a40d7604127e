/**
 * What bearer authentication needs of the token machinery. Declared here so that security imports
 * nothing from oauth/: oauth/token-signing.ts implements it.
 */

export type Claims = Record<string, unknown>;

export interface TokenVerifier {
  /**
   * Checks signature and `exp` (against `nowSeconds`) and returns the claims. Any failure (not a
   * JWT, unknown key, bad signature, expired) is `InvalidToken` with the reference's description.
   * Tokens without `kid` (signed by the reference) are tried against every key.
   */
  verify(token: string, nowSeconds: number): Promise<Claims>;
}
