// The bound for the refresh_token benchmark (issue 30 item 3): a bare Fastify route with postgres.js
// that does the durable work of a refresh and nothing else. It verifies the presented refresh JWT
// (ES256, inline), rotates its row in one committed statement (consume the unused row, record the
// successor in the service's own `management.refresh_tokens` table), and signs two ES256 JWTs
// (access and refresh) carrying the claims of a token the service issued (the admin's roles and
// 40 scopes), with fresh iat, exp and jti. No client authentication, no user reload, no audit.
// `grant_type=password` starts a chain without any check (the benchmark's set-up only).
// Started by bench/oauth-refresh-token.mjs; prints its port.
//   node bench/oauth-refresh-bound-server.mjs <port> <database URL> <pool size> <claims JSON>
import { generateKeyPairSync, randomBytes, sign, verify } from 'node:crypto';
import Fastify from 'fastify';
import formbody from '@fastify/formbody';
import postgres from 'postgres';

const [port, url, poolSize, claimsJson] = process.argv.slice(2);
const template = JSON.parse(claimsJson);
const sql = postgres(url, { max: Number(poolSize), onnotice: () => {} });
const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const signingKey = { key: privateKey, dsaEncoding: 'ieee-p1363' };
const checkingKey = { key: publicKey, dsaEncoding: 'ieee-p1363' };
const header = Buffer.from(JSON.stringify({ alg: 'ES256', typ: 'JWT', kid: 'bound' })).toString('base64url');
const ACCESS_VALIDITY = 43200;
const REFRESH_VALIDITY = 30 * 24 * 3600;

const jwt = (claims) => {
  const input = `${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
  return `${input}.${sign('sha256', Buffer.from(input), signingKey).toString('base64url')}`;
};
const newJti = () => randomBytes(20).toString('base64url');

/** The two tokens of a response, the refresh token's jti chosen by the caller (recorded before signing). */
function tokens(refreshJti) {
  const iat = Math.floor(Date.now() / 1000);
  const jti = newJti();
  const access = { ...template, iat, exp: iat + ACCESS_VALIDITY, jti };
  const refresh = { ...access, exp: iat + REFRESH_VALIDITY, jti: refreshJti, ati: jti };
  return {
    access_token: jwt(access), token_type: 'bearer', refresh_token: jwt(refresh), expires_in: ACCESS_VALIDITY,
    scope: template.scope.join(' '), sub: template.sub, sources: template.sources, roles: template.roles,
    iat, iss: template.iss, grant_type: template.grant_type, jti,
  };
}

const expiresAt = () => new Date(Date.now() + REFRESH_VALIDITY * 1000);

const app = Fastify({ logger: false });
await app.register(formbody);
app.post('/oauth/token', async (req, reply) => {
  const body = req.body ?? {};
  if (body.grant_type === 'password') {
    const jti = newJti();
    await sql`insert into management.refresh_tokens (jti, family_id, client_id, user_login, expires_at)
      values (${jti}, ${jti}, ${template.client_id}, ${template.user_name}, ${expiresAt()})`;
    return reply.header('cache-control', 'no-store').send(tokens(jti));
  }
  const [h, p, s] = String(body.refresh_token ?? '').split('.');
  const claims = p && s && verify('sha256', Buffer.from(`${h}.${p}`), checkingKey, Buffer.from(s, 'base64url'))
    ? JSON.parse(Buffer.from(p, 'base64url').toString('utf8')) : undefined;
  if (!claims || claims.exp <= Date.now() / 1000 || typeof claims.ati !== 'string') {
    return reply.code(400).send({ error: 'invalid_grant', error_description: 'Invalid refresh token' });
  }
  const successor = newJti();
  // One statement, committed on its own: consume the unused row and record its successor.
  const rows = await sql`
    with consumed as (
      update management.refresh_tokens set used_at = now()
      where jti = ${claims.jti} and used_at is null and revoked_at is null
      returning family_id
    )
    insert into management.refresh_tokens (jti, family_id, parent_jti, client_id, user_login, expires_at)
    select ${successor}, family_id, ${claims.jti}, ${template.client_id}, ${template.user_name}, ${expiresAt()} from consumed
    returning jti`;
  if (rows.length === 0) return reply.code(400).send({ error: 'invalid_grant', error_description: 'Refresh token was already used' });
  return reply.header('cache-control', 'no-store').send(tokens(successor));
});
await app.listen({ host: '127.0.0.1', port: Number(port ?? 0) });
process.stdout.write(`${app.server.address().port}\n`);
process.on('SIGTERM', async () => {
  await app.close();
  await sql.end();
  process.exit(0);
});
