/**
 * The reference's success alert headers (managementportal.md §1): `X-managementPortalApp-alert:
 * managementPortalApp.<entity>.created|updated|deleted` and `X-managementPortalApp-params: <id>`.
 * Users say `userManagement.<action>` instead.
 */
import type { FastifyReply } from 'fastify';

export type AlertAction = 'created' | 'updated' | 'deleted';

export function alert(reply: FastifyReply, entity: string, action: AlertAction, param: string | number): FastifyReply {
  const key = entity === 'userManagement' ? `userManagement.${action}` : `managementPortalApp.${entity}.${action}`;
  return reply.header('x-managementportalapp-alert', key).header('x-managementportalapp-params', String(param));
}
