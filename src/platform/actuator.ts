/** Operational endpoints under /actuator (health, info; the rest behind admin basic auth). */
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';

export const actuatorPlugin = fp(async (app: FastifyInstance) => {
  app.get('/actuator/health', { schema: { tags: ['actuator'] } }, async (_req, reply) => {
    try {
      await app.db.ping();
      return { status: 'UP' };
    } catch {
      return reply.code(503).send({ status: 'DOWN' });
    }
  });
}, { name: 'platform-actuator', dependencies: ['platform-database'] });
