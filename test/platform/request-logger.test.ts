/** The lazy per-request logger (platform/logging.ts `requestLoggerFactory`) on a real pino logger. */
import { describe, expect, it, vi } from 'vitest';
import pino from 'pino';
import type { FastifyBaseLogger } from 'fastify';
import { requestLoggerFactory } from '../../src/platform/logging.js';
import { captureLog } from '../helpers/log-capture.js';

function logger(level: string) {
  const captured = captureLog();
  const parent = pino({ level }, captured.stream) as unknown as FastifyBaseLogger;
  const child = vi.spyOn(parent, 'child');
  return { parent, lines: captured.lines, child };
}

describe('request logger', () => {
  it('makes no pino child while nothing is logged at an enabled level', () => {
    const { parent, lines, child } = logger('warn');
    const log = requestLoggerFactory(parent, { reqId: 'req-1' }, {});
    log.info({ res: { statusCode: 200 } }, 'request completed');
    log.debug('detail');
    expect(lines()).toEqual([]);
    expect(child).not.toHaveBeenCalled();
    expect(log.level).toBe('warn');
  });

  it('logs at an enabled level with the request id, through one child', () => {
    const { parent, lines, child } = logger('info');
    const log = requestLoggerFactory(parent, { reqId: 'req-2' }, {});
    log.info('first');
    log.warn({ code: 7 }, 'second');
    expect(lines().map((l) => [l.reqId, l.msg, l.code])).toEqual([['req-2', 'first', undefined], ['req-2', 'second', 7]]);
    expect(child).toHaveBeenCalledTimes(1);
  });

  it('a route with its own log options gets a real child at once', () => {
    const { parent, lines, child } = logger('warn');
    const log = requestLoggerFactory(parent, { reqId: 'req-3' }, { level: 'debug' });
    expect(child).toHaveBeenCalledTimes(1);
    log.debug('visible');
    expect(lines().map((l) => [l.reqId, l.msg])).toEqual([['req-3', 'visible']]);
  });
});
