/**
 * The optional `radar_is.yml` of radar-auth (clients.md §3.3) at `RADAR_IS_CONFIG_LOCATION`:
 * `resourceName`, `publicKeyEndpoints` (each a key source) and, as an extension the reference's
 * reader refuses, `publicKeys` (PEMs, as radar-auth's README shows them). Other keys are ignored.
 * A missing or unreadable file, or a bad PEM or URL, stops the start naming the setting.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { keyFromPem, UnreadableKey, type PublicKey } from './keys.js';

export interface RadarIsConfig {
  resourceName?: string;
  publicKeyEndpoints: string[];
  publicKeys: PublicKey[];
}

const SETTING = 'RADAR_IS_CONFIG_LOCATION';

export class RadarIsConfigError extends Error {
  constructor(file: string, problem: string) {
    super(`${SETTING}: ${file}: ${problem}`);
    this.name = 'RadarIsConfigError';
  }
}

// Loaded only when the file is set: yaml is 72 modules, ~30 ms of a start (issue 30 item 5).
const loadYaml = () => createRequire(import.meta.url)('yaml') as typeof import('yaml');

const stringList = (value: unknown): value is string[] => Array.isArray(value) && value.every((v) => typeof v === 'string');

export function readRadarIsConfig(file: string): RadarIsConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new RadarIsConfigError(file, `cannot read the file (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  let doc: unknown;
  try {
    doc = loadYaml().parse(text);
  } catch (err) {
    throw new RadarIsConfigError(file, `not YAML (${(err as Error).message.split('\n')[0]})`);
  }
  if (doc === null || doc === undefined) doc = {};
  if (typeof doc !== 'object' || Array.isArray(doc)) throw new RadarIsConfigError(file, 'must be a YAML mapping');
  const { resourceName, publicKeyEndpoints = [], publicKeys = [] } = doc as Record<string, unknown>;
  if (resourceName !== undefined && resourceName !== null && (typeof resourceName !== 'string' || resourceName.trim() === '')) {
    throw new RadarIsConfigError(file, 'resourceName must be a non-empty string');
  }
  if (publicKeyEndpoints !== null && !stringList(publicKeyEndpoints)) throw new RadarIsConfigError(file, 'publicKeyEndpoints must be a list of URLs');
  if (publicKeys !== null && !stringList(publicKeys)) throw new RadarIsConfigError(file, 'publicKeys must be a list of PEM strings');
  const endpoints = publicKeyEndpoints ?? [];
  for (const url of endpoints) {
    if (!/^https?:\/\/[^/?#]/i.test(url) || !URL.canParse(url)) throw new RadarIsConfigError(file, `publicKeyEndpoints: not an http(s) URL: "${url}"`);
  }
  const keys = (publicKeys ?? []).map((pem, index) => {
    try {
      return keyFromPem(pem);
    } catch (err) {
      if (!(err instanceof UnreadableKey)) throw err;
      throw new RadarIsConfigError(file, `publicKeys[${index}]: ${err.message}`);
    }
  });
  return {
    ...(typeof resourceName === 'string' ? { resourceName: resourceName.trim() } : {}),
    publicKeyEndpoints: endpoints,
    publicKeys: keys,
  };
}
