/**
 * `GET /language?lang=nl&return=/path`: the navbar's language switch (issue 31 item 13). A link,
 * so it works without JavaScript and without a session: it remembers the language in the `lang`
 * cookie (a year, `SameSite=Lax`, on the context path so the OAuth pages read it too) and goes back
 * to `return`, a path of this site only (`safeNext`: no open redirect). The cookie wins over the
 * account's language and the browser's (i18n.ts). Setting it changes nothing but the pages' language,
 * so a GET from another site can do no harm a CSRF token would prevent.
 */
import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { context, safeNext } from './context.js';
import { LANGUAGE_COOKIE, LANGUAGES } from '../i18n/translator.js';

const LanguageQuery = Type.Object({
  lang: Type.Union(LANGUAGES.map((lang) => Type.Literal(lang))),
  return: Type.Optional(Type.String({ maxLength: 2048 })),
});
const ONE_YEAR_SECONDS = 365 * 24 * 60 * 60;

export const languageRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/language', { schema: { hide: true, querystring: LanguageQuery }, config: { publicPage: true } }, async (request, reply) => {
    const ui = context(request);
    reply.setCookie(LANGUAGE_COOKIE, request.query.lang, {
      path: `${ui.base}/`, sameSite: 'lax', secure: request.protocol === 'https', maxAge: ONE_YEAR_SECONDS,
    });
    return reply.header('cache-control', 'no-store').redirect(safeNext(request.query.return, ui.base), 303);
  });
};
