/**
 * English texts of the OAuth sign-in, consent and error pages (`/oauth/authorize`, views/oauth).
 * `{client}` in a text the page splits around, to show the client's id in bold.
 */
export const oauthEn = {
  'oauth.signInTitle': 'Sign in',
  'oauth.signInIntro': 'The application {client} asks you to sign in to RADAR-base ManagementPortal.',
  'oauth.username': 'User name',
  'oauth.password': 'Password',
  'oauth.signIn': 'Sign in',
  'oauth.wrongPassword': 'Wrong user name or password.',
  'oauth.consentTitle': 'Approve access',
  'oauth.signedInAs': 'You are signed in as {user}.',
  'oauth.consentAsk': 'The application {client} asks for access to your account with these permissions. Untick those you do not grant:',
  'oauth.approve': 'Approve',
  'oauth.deny': 'Deny',
  'oauth.errorTitle': 'Sign-in error',
  'oauth.errorReturn': 'Return to the application and try again.',
  'oauth.limited': 'Too many failed sign-in attempts. Try again in a minute.',
  'oauth.malformed': 'The request is malformed.',
  'oauth.unavailable': 'The service is briefly unavailable. Please try again in a moment.',
  'oauth.failed': 'Something went wrong. Please try again later.',
  'oauth.unknownClient': 'Unknown client: the application that sent you here is not registered.',
  'oauth.noRedirectUri': 'The request names no redirect URI.',
  'oauth.redirectUriNotRegistered': 'The redirect URI is not registered for this application.',
  'oauth.redirectUriInvalid': 'The registered redirect URI is not a valid URI.',
  'oauth.outOfDate': 'This page is out of date: another sign-in was started in this browser since. Start again from the application.',
  'oauth.noSignIn': 'No sign-in is in progress. Start again from the application.',
  'oauth.noAuthorization': 'No authorization is waiting for an answer. Start again from the application.',
  'oauth.csrf': 'The form has expired or was not sent by this site. Start the sign-in again from the application.',
} as const;

export type OAuthPageMessage = keyof typeof oauthEn;
