// The bound of the dev start-up (issue 30 item 5): PGlite alone opening an in-memory database
// and applying migrations/ through the same migrator as the service (drizzle-orm/pglite's), then
// answering `GET /actuator/health` with a `select 1` on a bare node:http server, so that
// bench/startup.mjs measures it as it measures dist/main.js (spawn → first 200). PORT from the
// environment.
//   node bench/bare-pglite.mjs
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { drizzle } from 'drizzle-orm/pglite';
import { migrate } from 'drizzle-orm/pglite/migrator';

const client = await PGlite.create();
await migrate(drizzle(client), { migrationsFolder: fileURLToPath(new URL('../migrations', import.meta.url)) });

const server = createServer((req, res) => {
  if (req.url !== '/actuator/health') return res.writeHead(404).end();
  client.query('select 1').then(
    () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"UP"}'),
    () => res.writeHead(503).end(),
  );
});
server.listen(Number(process.env.PORT), '127.0.0.1');
process.on('SIGTERM', () => server.close(() => client.close().then(() => process.exit(0))));
