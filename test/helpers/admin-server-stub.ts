/**
 * A local stand-in for a Spring Boot Admin server's instance registry: `POST /instances` answers
 * 201 `{ id }` (the same id for the same instance name, as the real server derives it), and
 * `DELETE /instances/{id}` 204. It records every request; `down` makes it answer 503.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface AdminRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  body: Record<string, unknown> | undefined;
}

export interface AdminServerStub {
  url: string;
  requests: AdminRequest[];
  /** Answer 503 to everything while true. */
  down: boolean;
  registrations(): AdminRequest[];
  close(): Promise<void>;
}

export async function startAdminServerStub(): Promise<AdminServerStub> {
  const stub: AdminServerStub = {
    url: '',
    requests: [],
    down: false,
    registrations: () => stub.requests.filter((r) => r.method === 'POST' && r.path === '/instances'),
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
  const server = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => { text += chunk.toString('utf8'); });
    req.on('end', () => {
      const body = text ? JSON.parse(text) as Record<string, unknown> : undefined;
      stub.requests.push({ method: req.method ?? '', path: req.url ?? '', authorization: req.headers.authorization, body });
      if (stub.down) {
        res.writeHead(503).end();
      } else if (req.method === 'POST' && req.url === '/instances') {
        res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ id: `id-${String(body?.name)}` }));
      } else if (req.method === 'DELETE' && req.url?.startsWith('/instances/')) {
        res.writeHead(204).end();
      } else {
        res.writeHead(404).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  stub.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return stub;
}
