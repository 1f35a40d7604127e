/**
 * CI's dependency audit (`node scripts/audit.mjs`, run by .ci/run): `npm audit --omit=dev --json`
 * over the production dependencies, printed as a report. It fails (exit 1) only for an advisory
 * of severity high or critical that has a fix available (`npm audit fix` or an upgrade of a
 * direct dependency would remove it); lower severities and advisories without a fix are reported
 * and pass, since nobody can act on them yet.
 *
 * When the audit cannot be had (no network, a registry or mirror without the audit endpoint,
 * output that is not an audit report) it reports why and exits 0: an unreachable registry says
 * nothing about our dependencies, and CI must not fail on another service's outage. The report
 * says "audit unavailable" so a reader sees that nothing was checked.
 */
import { spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';

/** Severities that fail CI when a fix is available. */
export const FAILING_SEVERITIES = ['high', 'critical'];

/**
 * What to do with `npm audit --json` output (its text): `{ status: 'pass' | 'fail' | 'unavailable',
 * lines }`, `lines` being the report to print.
 */
export function auditDecision(text) {
  let report;
  try {
    report = JSON.parse(text);
  } catch {
    return { status: 'unavailable', lines: ['audit unavailable: npm audit printed no JSON report'] };
  }
  if (!report || typeof report !== 'object' || report.error || typeof report.vulnerabilities !== 'object' || report.vulnerabilities === null) {
    const why = [report?.error?.code, report?.message ?? report?.error?.summary].filter(Boolean).join(' ');
    return { status: 'unavailable', lines: [`audit unavailable: ${why || 'not an audit report'}`] };
  }
  const found = Object.values(report.vulnerabilities);
  const lines = [];
  const failing = [];
  for (const v of found) {
    const fix = v.fixAvailable === true ? 'fix: npm audit fix'
      : v.fixAvailable && typeof v.fixAvailable === 'object' ? `fix: ${v.fixAvailable.name}@${v.fixAvailable.version}${v.fixAvailable.isSemVerMajor ? ' (major)' : ''}`
        : 'no fix yet';
    const titles = (v.via ?? []).filter((via) => typeof via === 'object' && via !== null).map((via) => `${via.title ?? ''} ${via.url ?? ''}`.trim());
    lines.push(`${v.severity} ${v.name} ${v.range ?? ''} (${fix})${titles.length ? `: ${titles.join('; ')}` : ''}`);
    if (FAILING_SEVERITIES.includes(v.severity) && v.fixAvailable) failing.push(v.name);
  }
  const counts = report.metadata?.vulnerabilities;
  lines.unshift(counts
    ? `npm audit (production dependencies): ${['critical', 'high', 'moderate', 'low', 'info'].map((s) => `${counts[s] ?? 0} ${s}`).join(', ')}`
    : `npm audit (production dependencies): ${found.length} vulnerable packages`);
  if (failing.length > 0) {
    lines.push(`FAIL: high or critical advisories with a fix available in ${failing.join(', ')}; see README "Dependency audit"`);
    return { status: 'fail', lines };
  }
  return { status: 'pass', lines };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const run = spawnSync('npm', ['audit', '--omit=dev', '--json'], { encoding: 'utf8', timeout: 120_000 });
  const { status, lines } = auditDecision(run.stdout ?? '');
  for (const line of lines) process.stdout.write(`${line}\n`);
  process.exit(status === 'fail' ? 1 : 0);
}
