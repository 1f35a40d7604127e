/**
 * A private, throwaway PostgreSQL cluster for fault tests that stop and start the server: never
 * the machine's shared one, which other tests use. `initdb` refuses root, so when the tests run
 * as root the cluster belongs to the `postgres` user (`runuser -u postgres --`).
 */
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Need } from './requires.js';

const BIN_ROOT = '/usr/lib/postgresql';

/** The newest installed PostgreSQL's bin directory, or undefined when none is installed. */
function postgresBin(): string | undefined {
  if (!existsSync(BIN_ROOT)) return undefined;
  const versions = readdirSync(BIN_ROOT).filter((v) => existsSync(join(BIN_ROOT, v, 'bin', 'initdb'))).sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(BIN_ROOT, versions[0], 'bin') : undefined;
}

const bin = postgresBin();
const asRoot = process.getuid?.() === 0;

/**
 * Whether the private-cluster tests run: PostgreSQL's server binaries are installed, or this is CI
 * (CI=true), which installs them (.ci/run). So a machine without them skips those tests locally,
 * and CI fails them with `createCluster`'s message naming the package instead of skipping silently.
 */
export const clusterAvailable = bin !== undefined || process.env.CI === 'true';
export const privateCluster: Need = [clusterAvailable, 'no PostgreSQL server binaries for a private cluster (apt-get install postgresql)'];

export interface PostgresCluster {
  port: number;
  /** `postgres://postgres@127.0.0.1:port/postgres` (trust authentication). */
  url: string;
  start(): void;
  /** Stops the server: `fast` ends sessions and checkpoints, `immediate` is a crash. */
  stop(mode?: 'fast' | 'immediate'): void;
  /** Stops the server (if running) and deletes its data directory. */
  destroy(): void;
}

function run(tool: string, args: string[]): string {
  const [cmd, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', join(bin!, tool), ...args]] : [join(bin!, tool), args];
  return execFileSync(cmd, argv, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** A free loopback TCP port (the OS picks it; the cluster binds it right after). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Server settings of a fault test's cluster: no fsync (its data is thrown away) and few
 * connections. `stock` keeps initdb's own settings instead, as a fresh installation runs them
 * (fsync and autovacuum on): what a benchmark measures.
 */
const FAULT_SETTINGS = '-c fsync=off -c max_connections=50';

/** Creates (initdb) and starts a cluster on a free port, in a new temporary directory. */
export async function createCluster(opts: { stock?: boolean } = {}): Promise<PostgresCluster> {
  if (!bin) throw new Error(`no PostgreSQL server binaries (initdb) under ${BIN_ROOT}: install the Debian package postgresql (apt-get install -y postgresql)`);
  const dir = mkdtempSync(join(tmpdir(), 'pg-cluster-'));
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(dir, uid, gid);
  }
  const data = join(dir, 'data');
  run('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8']);
  const port = await freePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1${opts.stock ? '' : ` ${FAULT_SETTINGS}`}`;
  let running = false;
  const cluster: PostgresCluster = {
    port,
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start() {
      run('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'server.log'), '-w', '-t', '30', 'start']);
      running = true;
    },
    stop(mode = 'fast') {
      run('pg_ctl', ['-D', data, '-m', mode, '-w', '-t', '30', 'stop']);
      running = false;
    },
    destroy() {
      try {
        if (running) cluster.stop('immediate');
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
  cluster.start();
  return cluster;
}
