/**
 * A real S3 server for tests: s3rver (S3 over HTTP, objects on disk in a temporary folder) on a
 * free port, reached through a TCP proxy that a test can cut to play a storage server that dies
 * mid-upload (every connection reset, new ones refused) and restore afterwards.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';
import { CreateBucketCommand, GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';

export interface TestS3 {
  /** The proxy's URL: what the app is configured with. */
  url: string;
  client: S3Client;
  createBucket(name: string): Promise<void>;
  keys(bucket: string, prefix: string): Promise<string[]>;
  read(bucket: string, key: string): Promise<Buffer>;
  /** Resolves once a request containing `marker` passed the proxy, after which every connection is cut and refused. */
  cutAt(marker: string): Promise<void>;
  restore(): void;
  close(): Promise<void>;
}

export async function startTestS3(): Promise<TestS3> {
  const directory = mkdtempSync(join(tmpdir(), 's3rver-'));
  const server = new S3rver({ port: 0, address: '127.0.0.1', directory, silent: true });
  const { port } = await server.run() as AddressInfo;

  const sockets = new Set<Socket>();
  let down = false;
  let armed: { marker: string; resolve: () => void } | undefined;
  const cut = () => {
    down = true;
    for (const socket of sockets) socket.destroy();
    sockets.clear();
  };
  const proxy = createServer((inbound) => {
    if (down) { inbound.destroy(); return; }
    const outbound = createConnection({ host: '127.0.0.1', port });
    sockets.add(inbound).add(outbound);
    inbound.on('data', (chunk: Buffer) => {
      if (armed && chunk.toString('latin1').includes(armed.marker)) {
        const { resolve } = armed;
        armed = undefined;
        cut();
        resolve();
        return;
      }
      outbound.write(chunk);
    });
    outbound.pipe(inbound);
    const drop = () => { inbound.destroy(); outbound.destroy(); sockets.delete(inbound); sockets.delete(outbound); };
    inbound.on('close', drop).on('error', drop);
    outbound.on('close', drop).on('error', drop);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;

  // The test's own client goes to s3rver directly, so it sees the store even while the proxy is cut.
  const client = new S3Client({
    endpoint: `http://127.0.0.1:${port}`, region: 'us-east-1', forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' }, requestChecksumCalculation: 'WHEN_REQUIRED',
  });
  return {
    url,
    client,
    async createBucket(name) { await client.send(new CreateBucketCommand({ Bucket: name })); },
    async keys(bucket, prefix) {
      const listed = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix }));
      return (listed.Contents ?? []).map((object) => object.Key!).sort();
    },
    async read(bucket, key) {
      const object = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      return Buffer.from(await object.Body!.transformToByteArray());
    },
    cutAt(marker) { return new Promise<void>((resolve) => { armed = { marker, resolve }; }); },
    restore() { down = false; },
    async close() {
      cut();
      client.destroy();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
