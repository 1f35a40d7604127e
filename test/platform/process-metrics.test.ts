/**
 * The process metrics (prom-client's default metrics) start a second after the server listens, or
 * at the first scrape before that: their loading is kept out of start-up (issue 30 item 5), and
 * what a scrape reads is the same either way.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js';

const admin = { authorization: `Basic ${Buffer.from('radar:radar').toString('base64')}` };
const PROCESS_METRIC = 'process_cpu_user_seconds_total';

describe('process metrics', () => {
  let t: TestApp | undefined;
  afterEach(async () => { await t?.close(); t = undefined; });

  it('are not registered at start, and a scrape before listening starts them', async () => {
    t = await buildTestApp();
    expect(t.app.metrics.getSingleMetric(PROCESS_METRIC)).toBeUndefined();
    const res = await t.app.inject({ method: 'GET', url: '/actuator/prometheus', headers: admin });
    expect(res.statusCode).toBe(200);
    expect(res.body).toMatch(new RegExp(`^${PROCESS_METRIC} \\d`, 'm'));
    // Once: a second scrape finds the same single series.
    const again = await t.app.inject({ method: 'GET', url: '/actuator/metrics', headers: admin });
    expect((again.json() as { names: string[] }).names.filter((n) => n === PROCESS_METRIC)).toHaveLength(1);
  });

  it('start on their own a second after the server listens', async () => {
    t = await buildTestApp();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    expect(t.app.metrics.getSingleMetric(PROCESS_METRIC)).toBeUndefined();
    await new Promise((r) => setTimeout(r, 1300));
    expect(t.app.metrics.getSingleMetric(PROCESS_METRIC)).toBeDefined();
  });

  it('do not start after the app closed', async () => {
    t = await buildTestApp();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { metrics } = t.app;
    await t.close();
    t = undefined;
    await new Promise((r) => setTimeout(r, 1300));
    expect(metrics.getSingleMetric(PROCESS_METRIC)).toBeUndefined();
  });
});
