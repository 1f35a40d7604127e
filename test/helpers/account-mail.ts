/** Shared by the account-mail tests: reading MIME parts of a received mail, and polling. */

export interface MimePart {
  /** `text/plain`, `text/html`, … */
  type: string;
  /** Decoded body (quoted-printable and base64 undone). */
  body: string;
}

function splitHead(raw: string): { head: string; body: string } {
  const match = /\r?\n\r?\n/.exec(raw);
  if (!match) return { head: raw, body: '' };
  return { head: raw.slice(0, match.index).replace(/\r?\n[ \t]+/g, ' '), body: raw.slice(match.index + match[0].length) };
}

const header = (head: string, name: string) => new RegExp(`^${name}:\\s*(.*)$`, 'im').exec(head)?.[1] ?? '';

function decode(body: string, encoding: string): string {
  switch (encoding.toLowerCase()) {
    case 'quoted-printable': {
      const soft = body.replace(/=\r?\n/g, '');
      const bytes: number[] = [];
      for (let i = 0; i < soft.length; i++) {
        if (soft[i] === '=' && /^[0-9A-F]{2}$/i.test(soft.slice(i + 1, i + 3))) {
          bytes.push(parseInt(soft.slice(i + 1, i + 3), 16));
          i += 2;
        } else {
          bytes.push(...Buffer.from(soft[i]!, 'utf8'));
        }
      }
      return Buffer.from(bytes).toString('utf8');
    }
    case 'base64': return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
    default: return body;
  }
}

/** The leaf parts of a raw message (the message itself when it is not multipart). */
export function mimeParts(raw: string): MimePart[] {
  const { head, body } = splitHead(raw);
  const type = header(head, 'Content-Type');
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
  if (!type.toLowerCase().startsWith('multipart/') || !boundary) {
    return [{ type: type.split(';')[0]!.trim().toLowerCase(), body: decode(body, header(head, 'Content-Transfer-Encoding')) }];
  }
  const sections = body.split(new RegExp(`\\r?\\n?--${boundary.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?:--)?\\r?\\n?`));
  // The first section is the preamble, the last the epilogue.
  return sections.slice(1, -1).filter((s) => s.trim() !== '').flatMap(mimeParts);
}
