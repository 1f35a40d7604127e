/**
 * The aRMT protocols of the protocol repository (appserver.md §1.6, §6.1–§6.2; issue 20 items 2–4).
 *
 * The last good copy of every protocol file lives in `protocol_files` and in memory. It is fresh
 * for the cache duration; after that the first read starts one refresh in the background and is
 * answered from the copy, so GitHub's latency or outage reaches no caller once a copy exists
 * (after a restart too). Only when nothing was ever stored does a read wait for GitHub.
 * A refresh downloads only files whose blob sha changed; a file that fails to download or is not
 * a JSON object keeps its previous copy and affects no other. Files are served as stored, never
 * re-serialised, so fields this service does not know (an assessment `type` such as `on_demand`)
 * reach the app unchanged.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../../platform/database.js';
import { DomainError } from '../../platform/errors.js';
import { NotFound } from '../errors.js';
import type { AppserverEventBus } from '../events.js';
import type { GithubClient } from '../github/client.js';
import { createRefreshGate } from '../github/refresh-gate.js';
import type { ProtocolFileRow } from '../schema.js';
import { requireProject, requireSubject } from '../users/service.js';
import { listUsers } from '../users/queries.js';
import type { ReadScope } from '../read-scope-queries.js';
import { headTreeSha, listProtocolFiles, readProtocolFile, type ProtocolSource, type RemoteProtocolFile } from './discovery.js';
import { chooseProtocol, parseProtocolPath, type ProtocolPath } from './match.js';
import * as q from './queries.js';

/** A protocol file as stored: its text exactly as in the repository, and that text parsed. */
export interface Protocol {
  path: string;
  projectId: string;
  /** Git blob sha of the file: equal shas, equal protocols. */
  sha: string;
  /** The file's JSON text as the repository holds it. */
  text: string;
  /** `text` parsed (a JSON object). */
  readonly protocol: unknown;
}

/** 502: nothing was ever stored and GitHub cannot be read now. */
export class ProtocolsUnavailable extends DomainError {
  constructor() { super(502, 'Protocols are not available: GitHub could not be read and no copy is stored yet'); }
}

interface Entry extends ProtocolPath {
  copy: Protocol;
}

interface Index {
  entries: Map<string, Entry>;
  /** Epoch ms of the last successful refresh by this process, null before the first. */
  checkedAt: number | null;
  /** The tree whose every protocol file this process has stored: while the branch points to it, nothing changed. */
  treeSha: string | null;
}

/** Protocol files downloaded at the same time during a refresh. */
const DOWNLOADS_AT_ONCE = 4;

function toEntry(row: ProtocolFileRow, parsed: ProtocolPath): Entry {
  let protocol: unknown;
  const copy: Protocol = {
    path: row.path, projectId: parsed.projectId, sha: row.sha, text: row.content,
    get protocol() { return (protocol ??= JSON.parse(row.content)); },
  };
  return { ...parsed, copy };
}

export function createProtocolService(deps: {
  db: Database; github: GithubClient; events: AppserverEventBus; log: FastifyBaseLogger;
  source: ProtocolSource; durationMs: number; retryMs: number; now?: () => number;
}) {
  const { db, github, events, log, source, durationMs, retryMs, now = Date.now } = deps;
  const gate = createRefreshGate<'protocols'>({ retryMs, max: 1, now });
  const closing = new AbortController();
  let loading: Promise<Index> | undefined;
  const sourceKey = `${source.repo}@${source.branch}`;

  const entryOf = (row: ProtocolFileRow): Entry | undefined => {
    const parsed = parseProtocolPath(row.path, source.fileName);
    return parsed && toEntry(row, parsed);
  };

  /** The stored copies, read once per process. */
  function index(): Promise<Index> {
    loading ??= q.listProtocolFileRows(db, sourceKey).then(
      (rows) => ({ entries: new Map(rows.flatMap((row) => { const e = entryOf(row); return e ? [[row.path, e] as const] : []; })), checkedAt: null, treeSha: null }),
      (err: unknown) => { loading = undefined; throw err; },
    );
    return loading;
  }

  /** Downloads the files; those that fail are logged and left out. */
  async function download(files: RemoteProtocolFile[], fetchedAt: Date): Promise<{ rows: ProtocolFileRow[]; failed: number }> {
    const rows: ProtocolFileRow[] = [];
    let failed = 0;
    let next = 0;
    await Promise.all(Array.from({ length: Math.min(DOWNLOADS_AT_ONCE, files.length) }, async () => {
      for (let file = files[next++]; file; file = files[next++]) {
        try {
          rows.push({ source: sourceKey, path: file.path, sha: file.sha, content: await readProtocolFile(github, file, closing.signal), fetchedAt });
        } catch (err) {
          failed++;
          log.warn({ path: file.path, reason: (err as Error).message }, 'protocol file not updated, keeping its last good copy');
        }
      }
    }));
    return { rows, failed };
  }

  /**
   * Reads the repository and stores what changed; returns the changed paths. One request while
   * the branch still points to the tree last stored in full; else the tree's listing and the
   * files whose sha changed.
   */
  async function refresh(): Promise<string[]> {
    const current = await index();
    const treeSha = await headTreeSha(github, source, closing.signal);
    if (treeSha === current.treeSha) {
      current.checkedAt = now();
      return [];
    }
    const listed = await listProtocolFiles(github, source, treeSha, closing.signal);
    const changedFiles = listed.files.filter((file) => parseProtocolPath(file.path, source.fileName) && current.entries.get(file.path)?.copy.sha !== file.sha);
    const { rows, failed } = await download(changedFiles, new Date(now()));
    // A listing GitHub cut short proves nothing about the files it left out.
    const listedPaths = new Set(listed.files.map((f) => f.path));
    const gone = listed.truncated ? [] : [...current.entries.keys()].filter((path) => !listedPaths.has(path));
    const changed = (await db.transaction(async (tx) => [...await q.saveProtocolFiles(tx, rows), ...await q.deleteProtocolFiles(tx, sourceKey, gone)])).sort();
    for (const row of rows) {
      const entry = entryOf(row);
      if (entry) current.entries.set(row.path, entry);
    }
    for (const path of gone) current.entries.delete(path);
    current.checkedAt = now();
    // A file that failed is tried again at the next refresh, so this tree is not done yet.
    current.treeSha = failed === 0 && !listed.truncated ? treeSha : null;
    if (changed.length > 0) {
      log.info({ paths: changed }, 'protocols changed');
      events.publish('protocol.changed', { paths: changed, projectIds: [...new Set(changed.map((p) => p.split('/')[0]!))] });
    }
    return changed;
  }

  /**
   * GitHub outages in the log (issue 30 item 9): one warning when reading the repository starts
   * to fail and one when it works again. Every failed attempt used to warn (once a retry
   * duration), and every user whose schedule waited for the protocols logged an error of its own:
   * 200 users created during an outage gave 200 error lines. The attempts in between are debug.
   */
  let outage: { since: number; attempts: number } | undefined;
  async function refreshLogged(): Promise<string[]> {
    let changed: string[];
    try {
      changed = await refresh();
    } catch (err) {
      const reason = (err as Error).message;
      if (closing.signal.aborted) throw err; // stopping, not an outage
      if (outage) {
        outage.attempts++;
        log.debug({ reason, failedAttempts: outage.attempts }, 'protocols still cannot be read from GitHub');
      } else {
        outage = { since: now(), attempts: 1 };
        const stored = (await index().catch(() => undefined))?.entries.size ?? 0;
        log.warn({ reason, retrySeconds: retryMs / 1000 }, stored > 0
          ? 'protocols cannot be refreshed from GitHub: serving the stored copies until it answers (logged again when it does)'
          : 'protocols cannot be read from GitHub and none is stored: schedules are not generated and protocol requests answer 502 until it answers (logged again when it does)');
      }
      throw err;
    }
    if (outage) {
      log.warn({ outageSeconds: Math.round((now() - outage.since) / 1000), failedAttempts: outage.attempts }, 'protocols read from GitHub again: the outage is over');
      outage = undefined;
    }
    return changed;
  }

  /** The copies, refreshed in the background when stale; waits for GitHub only when nothing is stored. */
  async function current(): Promise<Index> {
    const idx = await index();
    if (idx.entries.size === 0 && idx.checkedAt === null) {
      if (gate.recentFailure('protocols') !== undefined) throw new ProtocolsUnavailable();
      try {
        await gate.run('protocols', refreshLogged);
      } catch {
        throw new ProtocolsUnavailable(); // refreshLogged logged it
      }
    } else if (idx.checkedAt === null || now() - idx.checkedAt >= durationMs) {
      if (!gate.running('protocols') && gate.recentFailure('protocols') === undefined && !closing.signal.aborted) {
        gate.run('protocols', refreshLogged).catch(() => { /* refreshLogged logged it; the stored copies answer */ });
      }
    }
    return idx;
  }

  async function forUser(projectId: string, attributes: Readonly<Record<string, string>>): Promise<Protocol | undefined> {
    return chooseProtocol((await current()).entries.values(), projectId, attributes)?.copy;
  }

  return {
    /**
     * The protocol of a user (R2's rule): the file of the project whose attribute pairs all match
     * `attributes`, with the most pairs, else `{projectId}/{file}`; undefined when none.
     * Throws `ProtocolsUnavailable` when no copy was ever stored and GitHub cannot be read: a
     * caller must then change nothing (an empty answer would wrongly mean "no protocol").
     * `subjectId` names the user in logs only; the protocol depends on project and attributes.
     */
    async forUser(projectId: string, _subjectId: string, attributes: Readonly<Record<string, string>>): Promise<Protocol | undefined> {
      return forUser(projectId, attributes);
    },

    /** `{projectId}/{file}` exactly; undefined when none. Throws like `forUser`. */
    async forProject(projectId: string): Promise<Protocol | undefined> {
      return (await current()).entries.get(`${projectId}/${source.fileName}`)?.copy;
    },

    /** R3: the project's protocol text; 404 for an unknown project or one without a protocol. */
    async projectProtocol(projectId: string): Promise<string> {
      await requireProject(db, projectId);
      const found = (await current()).entries.get(`${projectId}/${source.fileName}`);
      if (!found) throw new NotFound(`No protocol found for project ${projectId}`);
      return found.copy.text;
    },

    /** R2: the protocol text of a user of a project; 404 for an unknown project or user, or no protocol. */
    async subjectProtocol(projectId: string, subjectId: string): Promise<string> {
      const { user } = await requireSubject(db, projectId, subjectId);
      const found = await forUser(projectId, user.attributes);
      if (!found) throw new NotFound(`No protocol found for subject ${subjectId} in project ${projectId}`);
      return found.text;
    },

    /**
     * R1: `{subjectId: protocol}` for every user with a protocol, as JSON text built from the
     * stored files. Kept from the reference: keyed by subjectId alone, so of two projects' users
     * with one subjectId, the later user's protocol is listed.
     */
    async allBySubject(scope: ReadScope): Promise<string> {
      const idx = await current();
      const bySubject = new Map<string, string>();
      // Only the users the token may read (issue 21 item 7).
      for (const { user, projectId } of await listUsers(db, scope)) {
        const found = chooseProtocol(idx.entries.values(), projectId, user.attributes);
        if (found) bySubject.set(user.subjectId, found.copy.text);
      }
      return `{${[...bySubject].map(([subjectId, text]) => `${JSON.stringify(subjectId)}:${text}`).join(',')}}`;
    },

    /** Reads the repository now (joining a running refresh); returns the changed paths. Throws the GitHub failure. */
    refresh: () => gate.run('protocols', refreshLogged),

    /** Stops a running refresh and waits for it. */
    async close() {
      closing.abort();
      await gate.idle();
    },
  };
}

export type ProtocolService = ReturnType<typeof createProtocolService>;
