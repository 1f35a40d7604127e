/**
 * The admin UI's message catalogue: `en` is complete, `nl` translates what it has and falls back to
 * `en` key by key. A page's language is the browser's first `Accept-Language` the catalogue
 * knows, else `en`.
 */
import { en, type MessageKey } from './messages/en.js';
import { nl } from './messages/nl.js';

export type { MessageKey };
export type Translate = (key: MessageKey, params?: Record<string, string | number>) => string;

const CATALOGUES: Readonly<Record<string, Partial<Record<MessageKey, string>>>> = { en, nl };
export const LANGUAGES = Object.keys(CATALOGUES);

export function translator(lang: string): Translate {
  const catalogue = CATALOGUES[lang] ?? en;
  return (key, params) => {
    const text = catalogue[key] ?? en[key];
    return params ? text.replace(/\{(\w+)\}/g, (whole, name: string) => (name in params ? String(params[name]) : whole)) : text;
  };
}

/** The first language of `Accept-Language` the catalogue has, else `en`. */
export function languageOf(preferred: string | null | undefined, acceptLanguage: string | undefined): string {
  if (preferred && preferred in CATALOGUES) return preferred;
  for (const part of (acceptLanguage ?? '').split(',')) {
    const tag = part.split(';')[0]!.trim().toLowerCase().split('-')[0]!;
    if (tag in CATALOGUES) return tag;
  }
  return 'en';
}
