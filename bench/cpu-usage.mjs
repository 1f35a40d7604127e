// CPU seconds used by processes over an interval, from /proc (utime + stime, in clock ticks).
import { readdirSync, readFileSync } from 'node:fs';

const TICKS = 100;

function cpuOf(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS;
  } catch {
    return 0;
  }
}

function commOf(pid) {
  try { return readFileSync(`/proc/${pid}/comm`, 'utf8').trim(); } catch { return ''; }
}

/** Sum of CPU seconds of every process whose command name starts with `prefix`. */
function cpuOfCommand(prefix) {
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (/^\d+$/.test(entry) && commOf(entry).startsWith(prefix)) total += cpuOf(entry);
  }
  return total;
}

/**
 * Starts a CPU meter for the service process, PostgreSQL's processes and this (driver) process;
 * `stop()` returns the cores each used on average since the start.
 */
export function cpuMeter(servicePid) {
  const start = { service: cpuOf(servicePid), postgres: cpuOfCommand('postgres'), driver: cpuOf(process.pid), at: performance.now() };
  return () => {
    const seconds = (performance.now() - start.at) / 1000;
    const cores = (now, then) => Number(((now - then) / seconds).toFixed(2));
    return {
      service: cores(cpuOf(servicePid), start.service),
      postgres: cores(cpuOfCommand('postgres'), start.postgres),
      driver: cores(cpuOf(process.pid), start.driver),
    };
  };
}
