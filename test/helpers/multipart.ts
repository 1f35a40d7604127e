/** multipart/form-data request bodies for the upload tests (as a browser's FormData sends them). */
import { randomBytes } from 'node:crypto';

export interface Part {
  name: string;
  /** Present: a file part. */
  filename?: string;
  content: Buffer | string;
}

export const BOUNDARY = `----radar${randomBytes(8).toString('hex')}`;
export const multipartHeaders = { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` };

/** The head of one part (its boundary line and headers). */
export function partHead(part: Omit<Part, 'content'>): Buffer {
  const disposition = `form-data; name="${part.name}"${part.filename !== undefined ? `; filename="${part.filename}"` : ''}`;
  const type = part.filename !== undefined ? 'Content-Type: application/octet-stream\r\n' : '';
  return Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: ${disposition}\r\n${type}\r\n`);
}

export const CLOSE = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);
const BETWEEN = Buffer.from('\r\n');

export function multipartBody(parts: Part[]): Buffer {
  const chunks: Buffer[] = [];
  parts.forEach((part, i) => {
    if (i > 0) chunks.push(BETWEEN);
    chunks.push(partHead(part), Buffer.from(part.content));
  });
  chunks.push(CLOSE);
  return Buffer.concat(chunks);
}
