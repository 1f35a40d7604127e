/**
 * The message catalogue of the management domain's pages (admin UI, OAuth sign-in and consent):
 * `en` and `nl` are both complete (test/management/ui/i18n.test.ts holds every key of one to the
 * other); a key a catalogue lacks all the same shows the English text.
 *
 * A page's language (issue 31 item 13), first that the catalogue has:
 * 1. the `lang` cookie the navbar's language switch sets (`GET /language`);
 * 2. the signed-in account's language (`users.lang_key`);
 * 3. the browser's `Accept-Language`, in its order;
 * else `en`.
 */
import { en, type MessageKey } from './messages/en.js';
import { nl } from './messages/nl.js';

export type { MessageKey };
export type Translate = (key: MessageKey, params?: Record<string, string | number>) => string;

const CATALOGUES: Readonly<Record<string, Partial<Record<MessageKey, string>>>> = { en, nl };
export const LANGUAGES = Object.keys(CATALOGUES);
/** The cookie the language switch sets; on the context path, so the OAuth pages read it too. */
export const LANGUAGE_COOKIE = 'lang';
/** Each language's name in that language, for the switch. */
export const LANGUAGE_NAMES: Readonly<Record<string, string>> = { en: 'English', nl: 'Nederlands' };

export const isLanguage = (lang: unknown): lang is string => typeof lang === 'string' && Object.hasOwn(CATALOGUES, lang);

export function translator(lang: string): Translate {
  const catalogue = CATALOGUES[lang] ?? en;
  return (key, params) => {
    const text = catalogue[key] ?? en[key];
    return params ? text.replace(/\{(\w+)\}/g, (whole, name: string) => (name in params ? String(params[name]) : whole)) : text;
  };
}

export interface LanguageSources {
  /** The `lang` cookie's value. */
  cookie?: string | null | undefined;
  /** The signed-in account's `lang_key`. */
  account?: string | null | undefined;
  /** The request's `Accept-Language` header. */
  acceptLanguage?: string | undefined;
}

/** The page's language: the cookie's, else the account's, else the browser's first the catalogue has, else `en`. */
export function languageOf({ cookie, account, acceptLanguage }: LanguageSources): string {
  if (isLanguage(cookie)) return cookie;
  if (isLanguage(account)) return account;
  for (const part of (acceptLanguage ?? '').split(',')) {
    const tag = part.split(';')[0]!.trim().toLowerCase().split('-')[0]!;
    if (isLanguage(tag)) return tag;
  }
  return 'en';
}
