// The bound for the client_credentials benchmark: a bare Fastify endpoint that parses the form and
// the Basic header, compares the secret, and signs one ES256 JWT. Nothing else (no database, no
// client lookup, no audit). Started by bench/oauth-client-credentials.mjs; prints its port.
import { createHash, generateKeyPairSync, randomBytes, sign, timingSafeEqual } from 'node:crypto';
import Fastify from 'fastify';
import formbody from '@fastify/formbody';

const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const header = Buffer.from(JSON.stringify({ alg: 'ES256', typ: 'JWT', kid: 'bound' })).toString('base64url');
const expected = createHash('sha256').update('secret').digest();

const app = Fastify({ logger: false });
await app.register(formbody);
app.post('/oauth/token', async (req, reply) => {
  const auth = req.headers.authorization ?? '';
  const decoded = Buffer.from(auth.slice(6), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  const clientId = decoded.slice(0, colon);
  const presented = createHash('sha256').update(decoded.slice(colon + 1)).digest();
  if (colon < 0 || clientId !== 'radar_restapi' || !timingSafeEqual(presented, expected) || req.body?.grant_type !== 'client_credentials') {
    return reply.code(401).send({ error: 'invalid_client', error_description: 'Bad client credentials' });
  }
  const iat = Math.floor(Date.now() / 1000);
  const jti = randomBytes(20).toString('base64url');
  const claims = { aud: ['res_ManagementPortal'], scope: ['SUBJECT.READ', 'PROJECT.READ', 'SOURCE.READ', 'SOURCETYPE.READ'], iss: 'ManagementPortal', iat, exp: iat + 43200, grant_type: 'client_credentials', client_id: clientId, jti };
  const input = `${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
  const token = `${input}.${sign('sha256', Buffer.from(input), { key: privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64url')}`;
  return reply.header('cache-control', 'no-store').send({
    access_token: token, token_type: 'bearer', expires_in: 43200, scope: claims.scope.join(' '), iat, iss: 'ManagementPortal', grant_type: 'client_credentials', jti,
  });
});
await app.listen({ host: '127.0.0.1', port: Number(process.argv[2] ?? 0) });
process.stdout.write(`${app.server.address().port}\n`);
