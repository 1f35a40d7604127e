/**
 * CI's dependency audit (scripts/audit.mjs): its decision on `npm audit --json` reports. A high or
 * critical advisory with a fix fails; without a fix, or of a lower severity, it is reported and
 * passes; an audit that could not be had (registry unreachable, no audit endpoint) passes as
 * "unavailable".
 */
import { describe, expect, it } from 'vitest';
import { auditDecision } from '../../scripts/audit.mjs';

type Fix = boolean | { name: string; version: string; isSemVerMajor: boolean };
const vuln = (name: string, severity: string, fixAvailable: Fix) => ({
  name, severity, fixAvailable, isDirect: false, range: '<1.2.3', nodes: [`node_modules/${name}`], effects: [],
  via: [{ source: 1, name, title: `${name} does something bad`, url: `https://github.com/advisories/GHSA-${name}`, severity, range: '<1.2.3' }],
});
const report = (...vulns: ReturnType<typeof vuln>[]) => JSON.stringify({
  auditReportVersion: 2,
  vulnerabilities: Object.fromEntries(vulns.map((v) => [v.name, v])),
  metadata: { vulnerabilities: { info: 0, low: 0, moderate: 0, high: vulns.filter((v) => v.severity === 'high').length, critical: vulns.filter((v) => v.severity === 'critical').length, total: vulns.length } },
});

describe('the audit decision', () => {
  it('passes a clean report', () => {
    const decision = auditDecision(report());
    expect(decision.status).toBe('pass');
    expect(decision.lines[0]).toBe('npm audit (production dependencies): 0 critical, 0 high, 0 moderate, 0 low, 0 info');
  });

  it('fails for a high or a critical advisory that has a fix, naming the package', () => {
    for (const fix of [true, { name: 'fastify', version: '5.99.0', isSemVerMajor: false }] as Fix[]) {
      for (const severity of ['high', 'critical']) {
        const decision = auditDecision(report(vuln('tar-ish', severity, fix), vuln('other', 'low', true)));
        expect(decision.status, `${severity} ${JSON.stringify(fix)}`).toBe('fail');
        expect(decision.lines.at(-1)).toMatch(/^FAIL: .* in tar-ish;/);
        expect(decision.lines.join('\n')).toContain('https://github.com/advisories/GHSA-tar-ish');
      }
    }
  });

  it('reports but passes a high advisory without a fix, and a moderate one with a fix', () => {
    const decision = auditDecision(report(vuln('nofix', 'critical', false), vuln('mod', 'moderate', true)));
    expect(decision.status).toBe('pass');
    expect(decision.lines).toEqual(expect.arrayContaining([expect.stringMatching(/^critical nofix .*\(no fix yet\)/), expect.stringMatching(/^moderate mod .*\(fix: npm audit fix\)/)]));
  });

  it('an audit that could not be had is reported as unavailable and passes', () => {
    const unreachable = JSON.stringify({ error: { code: 'ENOTFOUND', summary: 'request to https://registry.npmjs.org/-/npm/v1/security/advisories/bulk failed', detail: '' } });
    const noEndpoint = JSON.stringify({ message: '405 Method Not Allowed - POST https://registry.example/-/npm/v1/security/advisories/bulk', statusCode: 405, error: { summary: '', detail: '' } });
    for (const text of [unreachable, noEndpoint, '', 'npm ERR! network']) {
      const decision = auditDecision(text);
      expect(decision.status, text).toBe('unavailable');
      expect(decision.lines[0]).toMatch(/^audit unavailable: /);
    }
    expect(auditDecision(unreachable).lines[0]).toContain('ENOTFOUND');
  });
});
