/**
 * A local stand-in for FCM's HTTP v1 send endpoint, for tests, benchmarks and `npm run fcm-stub`.
 * Point the service at it with FCM_EMULATOR_HOST=host:port: the real firebase-admin client then
 * sends `POST /v1/projects/{project}/messages:send` here over plain HTTP.
 *
 * It records every message and answers `{ name: "projects/{project}/messages/{n}" }`, or the
 * error a test configured (`respond`), in FCM's error body (a google.rpc.Status with an FcmError
 * detail), which firebase-admin maps to its `messaging/…` codes.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** FCM v1 error codes (FcmError.errorCode) the stub can answer, with their HTTP status and rpc status. */
export const FCM_ERRORS = {
  UNREGISTERED: [404, 'NOT_FOUND'],
  INVALID_ARGUMENT: [400, 'INVALID_ARGUMENT'],
  SENDER_ID_MISMATCH: [403, 'PERMISSION_DENIED'],
  QUOTA_EXCEEDED: [429, 'RESOURCE_EXHAUSTED'],
  UNAVAILABLE: [503, 'UNAVAILABLE'],
  INTERNAL: [500, 'INTERNAL'],
  THIRD_PARTY_AUTH_ERROR: [401, 'UNAUTHENTICATED'],
} as const;
export type FcmErrorCode = keyof typeof FCM_ERRORS;

/** The `message` of a send request, as firebase-admin serialised it. */
export type FcmMessage = Record<string, unknown> & { token?: string; topic?: string; condition?: string };

export interface Received {
  project: string;
  message: FcmMessage;
  authorization: string | undefined;
  at: number;
}

/** An error answer, or undefined for success. */
export type Responder = (message: FcmMessage, index: number) => FcmErrorCode | { code: FcmErrorCode; message?: string } | undefined;

export interface FcmStub {
  /** `127.0.0.1:port`, the value for FCM_EMULATOR_HOST. */
  host: string;
  port: number;
  /** Every accepted or refused send, in arrival order. */
  received: Received[];
  /** Decides the answer for each request (default: success). */
  respond: Responder;
  /** Answers each request after this many milliseconds (default 0), like a slow FCM. */
  delayMs: number;
  /** Requests seen in total (including refused ones). */
  count(): number;
  close(): Promise<void>;
}

function fcmError(res: ServerResponse, code: FcmErrorCode, message: string) {
  const [status, rpc] = FCM_ERRORS[code];
  const body = JSON.stringify({
    error: {
      code: status,
      message,
      status: rpc,
      details: [{ '@type': 'type.googleapis.com/google.firebase.fcm.v1.FcmError', errorCode: code }],
    },
  });
  res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

export async function startFcmStub(opts: { port?: number; host?: string; onMessage?: (r: Received) => void; record?: boolean } = {}): Promise<FcmStub> {
  const received: Received[] = [];
  let n = 0;
  const record = opts.record ?? true;
  const stub: FcmStub = {
    host: '',
    port: 0,
    received,
    respond: () => undefined,
    delayMs: 0,
    count: () => n,
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const match = /^\/v1\/projects\/([^/]+)\/messages:send$/.exec(req.url ?? '');
    if (req.method !== 'POST' || !match) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      let message: FcmMessage;
      try {
        message = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { message: FcmMessage }).message;
      } catch {
        fcmError(res, 'INVALID_ARGUMENT', 'Invalid JSON payload received.');
        return;
      }
      const index = n++;
      const entry: Received = { project: match[1]!, message, authorization: req.headers.authorization, at: Date.now() };
      if (record) received.push(entry);
      opts.onMessage?.(entry);
      const answer = stub.respond(message, index);
      const reply = () => {
        if (answer) {
          const { code, message: text } = typeof answer === 'string' ? { code: answer, message: undefined } : answer;
          fcmError(res, code, text ?? (code === 'UNREGISTERED' ? 'Requested entity was not found.' : `stub answer ${code}`));
          return;
        }
        const body = JSON.stringify({ name: `projects/${match[1]}/messages/${index + 1}` });
        res.writeHead(200, { 'content-type': 'application/json; charset=UTF-8', 'content-length': Buffer.byteLength(body) });
        res.end(body);
      };
      if (stub.delayMs > 0) setTimeout(reply, stub.delayMs);
      else reply();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  stub.port = address.port;
  stub.host = `${opts.host ?? '127.0.0.1'}:${address.port}`;
  return stub;
}
