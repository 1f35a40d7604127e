/**
 * A pino destination that keeps what is written, for tests that read the log: pass `stream` as the
 * logger's stream (`buildTestApp(env, { logger: { level, stream } })` or `pino(options, stream)`).
 */
import { Writable } from 'node:stream';

/** One pino line, parsed. */
export type LogLine = Record<string, unknown> & { level: number; msg?: string };

export interface LogCapture {
  stream: Writable;
  /** Everything written so far, as text (one JSON object a line). */
  text(): string;
  /** Every line written so far, parsed. */
  lines(): LogLine[];
}

export function captureLog(): LogCapture {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString('utf8');
      done();
    },
  });
  return {
    stream,
    text: () => text,
    lines: () => text.split('\n').filter(Boolean).map((line) => JSON.parse(line) as LogLine),
  };
}
