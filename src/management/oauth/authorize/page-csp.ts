/**
 * The Content-Security-Policy of the sign-in, consent and error pages: nothing loads, the layout's
 * one inline `<style>` is allowed by its hash (nothing else inline), no framing. No form-action:
 * the consent form's answer redirects to the client, which may use any scheme.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

/** The CSP source of a template's `<style>` element: `'sha256-…'` of its text (the text holds no template tags). */
function inlineStyleHash(template: string): string {
  const style = /<style>([\s\S]*?)<\/style>/.exec(template)?.[1];
  if (style === undefined || style.includes('<%')) throw new Error('the OAuth layout needs one static <style> element');
  return `'sha256-${createHash('sha256').update(style).digest('base64')}'`;
}

const LAYOUT = new URL('../../../../views/oauth/layout.eta', import.meta.url);

export const OAUTH_PAGE_CSP = `default-src 'none'; style-src ${inlineStyleHash(readFileSync(LAYOUT, 'utf8'))}; frame-ancestors 'none'; base-uri 'none'`;
