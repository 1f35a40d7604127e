/** DTOs of app pairing (managementportal.md §2.10, §5; clients.md §1.4). */
import { Type, type Static } from 'typebox';

/** `Constants.TOKEN_NAME_REGEX` of the reference: a name outside it matches no token. */
export const TOKEN_NAME = /^[A-Za-z0-9.-]*$/;

export const PairQuery = Type.Object({
  login: Type.String({ minLength: 1, maxLength: 255, description: 'The subject to pair' }),
  clientId: Type.String({ minLength: 1, maxLength: 255, description: 'The app\'s OAuth client (`dynamic_registration` true, with the `refresh_token` grant)' }),
  // Kept from the reference: Spring reads booleans case-insensitively and the clients send `true` and `True`.
  persistent: Type.Optional(Type.String({
    pattern: '^(?:[Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee])$', default: 'false',
    description: '`true` (any case): a token that can be read repeatedly until it expires',
  })),
});
export type PairQueryT = Static<typeof PairQuery>;

export const ClientPairInfoDto = Type.Object({
  tokenName: Type.String({ examples: ['Xk3-a.9Q'] }),
  tokenUrl: Type.String({ description: 'Where the app reads the meta-token (the QR code\'s content)' }),
  baseUrl: Type.String({ description: 'The management portal\'s public URL' }),
  timeout: Type.Integer({ description: 'Lifetime of the token in milliseconds' }),
  timesOutAt: Type.String({ format: 'date-time' }),
}, { description: 'ClientPairInfoDTO' });
export type ClientPairInfoDtoT = Static<typeof ClientPairInfoDto>;

/** Any string: a name outside `TOKEN_NAME` is 404 like an unknown one (the reference's route did not match it). */
export const TokenNameParams = Type.Object({ tokenName: Type.String() });

export const TokenDto = Type.Object({
  refreshToken: Type.String({ description: 'A refresh token of the app\'s client for the subject (valid once)' }),
  baseUrl: Type.String({ description: 'The platform origin; the app appends `/managementportal/oauth/token`' }),
  privacyPolicyUrl: Type.String({ description: 'The project\'s `Privacy-policy-url` attribute, else the configured default' }),
}, { description: 'TokenDTO' });
export type TokenDtoT = Static<typeof TokenDto>;
