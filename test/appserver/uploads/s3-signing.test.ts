/**
 * What the S3 storage signs (storage.ts): over plain http the request carries the SHA-256 of the
 * file's bytes (the only thing tying them to the signature); the capture server stands in for S3.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createS3Storage } from '../../../src/appserver/uploads/storage.js';

const seen: Array<{ method: string; url: string; headers: IncomingHttpHeaders; body: Buffer }> = [];
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    seen.push({ method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks) });
    res.writeHead(200, { ETag: '"capture"' }).end();
  });
});
let url: string;
beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('S3 storage over plain http', () => {
  it('signs the SHA-256 of the file bytes, not UNSIGNED-PAYLOAD', async () => {
    const storage = createS3Storage({ url, region: 'us-east-1', accessKey: 'key', secretKey: 'secret', bucket: 'radar' }, pino({ level: 'silent' }));
    const bytes = Buffer.from('the bytes of a small file\n'.repeat(100));
    try {
      await storage.store('p/s/t/file.txt', Readable.from([bytes]));
    } finally {
      await storage.close();
    }
    const put = seen.find((r) => r.method === 'PUT' && r.url.startsWith('/radar/p/s/t/file.txt'));
    expect(put?.body.equals(bytes)).toBe(true);
    expect(put?.headers['x-amz-content-sha256']).toBe(createHash('sha256').update(bytes).digest('hex'));
    expect(put?.headers.authorization).toMatch(/x-amz-content-sha256/);
  });
});
