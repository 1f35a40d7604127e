/**
 * A local stand-in for a Sentry server's envelope endpoint (`POST /api/{project}/envelope/`).
 * Point the service at it with `SENTRY_DSN=stub.dsn`: the real @sentry/node SDK sends its
 * envelopes here over plain HTTP. Each envelope is newline-separated JSON (a header, then an item
 * header and its payload per item), gzip-compressed when large.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

export interface SentryItem {
  /** The item header's `type`: `event`, `session`, `log`, … */
  type: string;
  payload: Record<string, unknown>;
  /** The whole envelope as received (decompressed), to check what it does not hold. */
  raw: string;
  project: string;
}

export interface SentryStub {
  /** A DSN for this stub: `http://publickey@127.0.0.1:port/1`. */
  dsn: string;
  items: SentryItem[];
  /** The payloads of the `event` items. */
  events(): Record<string, unknown>[];
  close(): Promise<void>;
}

async function body(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const data = Buffer.concat(chunks);
  return req.headers['content-encoding'] === 'gzip' ? gunzipSync(data) : data;
}

export async function startSentryStub(): Promise<SentryStub> {
  const items: SentryItem[] = [];
  const server = createServer((req, res) => {
    const match = /^\/api\/([^/]+)\/envelope\/?/.exec(req.url ?? '');
    if (req.method !== 'POST' || !match) {
      res.writeHead(404).end();
      return;
    }
    void body(req).then((data) => {
      const raw = data.toString('utf8');
      const lines = raw.split('\n').filter(Boolean);
      for (let i = 1; i + 1 < lines.length; i += 2) {
        const header = JSON.parse(lines[i]!) as { type: string };
        items.push({ type: header.type, payload: JSON.parse(lines[i + 1]!) as Record<string, unknown>, raw, project: match[1]! });
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    dsn: `http://publickey@127.0.0.1:${port}/1`,
    items,
    events: () => items.filter((item) => item.type === 'event').map((item) => item.payload),
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
