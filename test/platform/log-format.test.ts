/**
 * The log destinations (platform/logging.ts): which format `LOG_FORMAT`, the profile and the
 * terminal choose; pretty lines that are as redacted as the JSON ones; several destinations.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { ConfigError, loadConfig } from '../../src/config.js';
import { logDestinations, logFormatOf, loggerOptions, logStream, prettyStream } from '../../src/platform/logging.js';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js';

describe('the log format', () => {
  const settings = (env: Record<string, string>) => loadConfig(env);

  it('is pretty in the dev profile on a terminal, JSON when stdout is not one', () => {
    expect(logFormatOf(settings({}), true)).toBe('pretty');
    expect(logFormatOf(settings({}), false)).toBe('json');
  });

  it('is JSON in the prod profile, terminal or not', () => {
    const prod = settings({ PROFILE: 'prod', DATABASE_URL: 'postgres://db/radar', RADAR_ADMIN_PASSWORD: 'secret-pw', MANAGEMENTPORTAL_MAIL_FROM: 'mp@example.org' });
    expect(logFormatOf(prod, true)).toBe('json');
    expect(logFormatOf(prod, false)).toBe('json');
  });

  it('is what LOG_FORMAT says, whatever the profile and terminal', () => {
    expect(logFormatOf(settings({ LOG_FORMAT: 'json' }), true)).toBe('json');
    expect(logFormatOf(settings({ LOG_FORMAT: 'PRETTY' }), false)).toBe('pretty');
    expect(logFormatOf(settings({ PROFILE: 'prod', LOG_FORMAT: 'pretty', DATABASE_URL: 'postgres://db/radar', RADAR_ADMIN_PASSWORD: 'secret-pw', MANAGEMENTPORTAL_MAIL_FROM: 'mp@example.org' }), false)).toBe('pretty');
  });

  it('refuses another LOG_FORMAT, naming the variable', () => {
    expect(() => loadConfig({ LOG_FORMAT: 'xml' })).toThrow(ConfigError);
    expect(() => loadConfig({ LOG_FORMAT: 'xml' })).toThrow('LOG_FORMAT: must be one of json, pretty, got "xml"');
  });

  it('gives one destination at the configured level', async () => {
    const destinations = await logDestinations({ logLevel: 'debug', logFormat: 'json', profile: 'dev' }, false);
    expect(destinations).toHaveLength(1);
    expect(destinations[0]!.level).toBe('debug');
    expect(logStream(destinations, 'debug')).toBe(destinations[0]!.stream);
  });
});

describe('several destinations', () => {
  it('each get the lines at or above their own level', () => {
    const all: string[] = [];
    const errors: string[] = [];
    const log = pino({ level: 'debug' }, logStream([
      { level: 'debug', stream: { write: (line: string) => { all.push(line); } } },
      { level: 'error', stream: { write: (line: string) => { errors.push(line); } } },
    ], 'debug'));
    log.debug('one');
    log.info('two');
    log.error('three');
    expect(all.map((line) => JSON.parse(line).msg)).toEqual(['one', 'two', 'three']);
    expect(errors.map((line) => JSON.parse(line).msg)).toEqual(['three']);
  });

  it('a single destination keeps its own level when the logger\'s is lower', () => {
    const lines: string[] = [];
    const log = pino({ level: 'debug' }, logStream([{ level: 'warn', stream: { write: (line: string) => { lines.push(line); } } }], 'debug'));
    log.info('dropped');
    log.warn('kept');
    expect(lines.map((line) => JSON.parse(line).msg)).toEqual(['kept']);
  });
});

describe('pretty logs of the app', () => {
  let out = '';
  let t: TestApp;
  beforeAll(async () => {
    const stream = await prettyStream({ write: (text: string) => { out += text; } });
    t = await buildTestApp({}, { logger: loggerOptions('info', stream) });
  });
  afterAll(async () => { await t.close(); });

  it('are readable lines, not JSON', async () => {
    await t.app.inject({ method: 'GET', url: '/actuator/health' });
    expect(out).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] (?:\S*INFO\S*): (?:\S*)incoming request/m);
    expect(out.split('\n').filter((line) => line.startsWith('{'))).toEqual([]);
  });

  it('are redacted as the JSON logs are: headers, query parameters, path secrets, messages', async () => {
    const secrets = ['bearer-7c1e-token', 'cookie-2b9f-value', 'client-secret-5d3a', 'refresh-token-8e4f', 'meta-token-1a2b3c'];
    out = '';
    await t.app.inject({
      method: 'GET',
      url: `/managementportal/api/meta-token/${secrets[4]}?client_secret=${secrets[2]}&refresh_token=${secrets[3]}&page=2`,
      headers: { authorization: `Bearer ${secrets[0]}`, cookie: `SESSION=${secrets[1]}` },
    });
    // A 404 whose message Fastify writes with the raw URL.
    await t.app.inject({ method: 'GET', url: `/no-such-route?client_secret=${secrets[2]}` });
    expect(out).toContain('incoming request');
    expect(out).toContain('[Redacted]');
    expect(out).toContain('page=2');
    for (const secret of secrets) expect(out).not.toContain(secret);
  });
});
