/**
 * The reference's OAuth clients file (managementportal.md §6): `;`-separated, a header row giving
 * the column order, comma lists inside cells, `additional_information` as a JSON object, an empty
 * cell meaning none. A pure parser: rows that cannot be read are returned as problems with their
 * line number (the caller logs and skips them); unknown scopes are returned as warnings.
 */
import { isPermissionScope } from '../../authz/permissions.js';

export interface ClientDefinition {
  clientId: string;
  resourceIds: string[];
  /** Plain secret from the file; null or '' for a public client. */
  clientSecret: string | null;
  scope: string[];
  authorizedGrantTypes: string[];
  redirectUris: string[];
  authorities: string[];
  accessTokenValidity: number | null;
  refreshTokenValidity: number | null;
  additionalInformation: Record<string, unknown>;
  autoApprove: string[];
}

export interface ParsedClientsFile {
  clients: { line: number; client: ClientDefinition }[];
  problems: { line: number; message: string }[];
  warnings: { line: number; message: string }[];
}

const COLUMNS = [
  'client_id', 'resource_ids', 'client_secret', 'scope', 'authorized_grant_types', 'redirect_uri',
  'authorities', 'access_token_validity', 'refresh_token_validity', 'additional_information', 'autoapprove',
] as const;
type Column = (typeof COLUMNS)[number];
/** Spring's `BaseClientDetails` JSON names that also appear in headers. */
const COLUMN_ALIASES: Readonly<Record<string, Column>> = { web_server_redirect_uri: 'redirect_uri', registered_redirect_uri: 'redirect_uri' };

export const CLIENT_ID_PATTERN = /^[_'.@A-Za-z0-9- ]+$/;
export const KNOWN_GRANT_TYPES = new Set(['password', 'client_credentials', 'refresh_token', 'authorization_code', 'implicit']);

/** Splits one line at `;`, honouring double-quoted cells (`""` is a quote inside one). */
function cells(line: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') { cur += '"'; i++; } else if (c === '"') quoted = false; else cur += c;
    } else if (c === '"' && cur.trim() === '') {
      quoted = true;
      cur = '';
    } else if (c === ';') {
      out.push(cur);
      cur = '';
    } else {
      cur += c;
    }
  }
  if (quoted) throw new Error('unterminated quoted cell');
  out.push(cur);
  return out.map((cell) => cell.trim());
}

const list = (cell: string | undefined) => (cell ?? '').split(',').map((s) => s.trim()).filter(Boolean);

function validity(cell: string | undefined, column: Column): number | null {
  if (!cell) return null;
  if (!/^\d+$/.test(cell) || Number(cell) > 2_147_483_647) throw new Error(`${column} must be a whole number of seconds, got "${cell}"`);
  return Number(cell);
}

export function parseClientsFile(text: string): ParsedClientsFile {
  const result: ParsedClientsFile = { clients: [], problems: [], warnings: [] };
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  const headerIndex = lines.findIndex((l) => l.trim() !== '');
  if (headerIndex < 0) return result;
  let header: (Column | undefined)[];
  try {
    header = cells(lines[headerIndex]!).map((name) => {
      const n = name.toLowerCase();
      return (COLUMNS as readonly string[]).includes(n) ? (n as Column) : COLUMN_ALIASES[n];
    });
  } catch (err) {
    result.problems.push({ line: headerIndex + 1, message: `header: ${(err as Error).message}` });
    return result;
  }
  if (!header.includes('client_id')) {
    result.problems.push({ line: headerIndex + 1, message: 'header row has no client_id column' });
    return result;
  }

  for (let i = headerIndex + 1; i < lines.length; i++) {
    const raw = lines[i]!;
    if (raw.trim() === '') continue;
    const line = i + 1;
    try {
      const values = cells(raw);
      if (values.length > header.length) throw new Error(`${values.length} cells, the header has ${header.length}`);
      const row: Partial<Record<Column, string>> = {};
      header.forEach((column, k) => { if (column) row[column] = values[k] ?? ''; });
      const clientId = row.client_id ?? '';
      if (!CLIENT_ID_PATTERN.test(clientId)) throw new Error(`client_id must match ${CLIENT_ID_PATTERN.source}, got "${clientId}"`);
      let additionalInformation: Record<string, unknown> = {};
      if (row.additional_information) {
        let parsed: unknown;
        try {
          parsed = JSON.parse(row.additional_information);
        } catch {
          throw new Error('additional_information is not valid JSON');
        }
        if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('additional_information must be a JSON object');
        additionalInformation = parsed as Record<string, unknown>;
      }
      const scope = [...new Set(list(row.scope))];
      const grants = list(row.authorized_grant_types);
      const unknownGrant = grants.find((g) => !KNOWN_GRANT_TYPES.has(g));
      if (unknownGrant) throw new Error(`unknown grant type "${unknownGrant}"`);
      const client: ClientDefinition = {
        clientId,
        resourceIds: list(row.resource_ids),
        clientSecret: row.client_secret ? row.client_secret : null,
        scope,
        authorizedGrantTypes: grants,
        redirectUris: list(row.redirect_uri),
        authorities: list(row.authorities),
        accessTokenValidity: validity(row.access_token_validity, 'access_token_validity'),
        refreshTokenValidity: validity(row.refresh_token_validity, 'refresh_token_validity'),
        additionalInformation,
        autoApprove: list(row.autoapprove),
      };
      for (const s of scope.filter((s) => !isPermissionScope(s))) {
        result.warnings.push({ line, message: `client ${clientId}: scope "${s}" is no permission scope; it is kept but no user token will carry it` });
      }
      result.clients.push({ line, client });
    } catch (err) {
      result.problems.push({ line, message: (err as Error).message });
    }
  }
  return result;
}
