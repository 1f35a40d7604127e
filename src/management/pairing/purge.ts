/**
 * The meta-token purge (the reference's monthly `MetaTokenService.removeStaleTokens`,
 * managementportal.md §5, §12): one-time tokens already read and expired tokens go. One DELETE,
 * so several instances may run it at once.
 */
import type { MaintenanceJob } from '../maintenance.js';
import { purgeMetaTokens } from './queries.js';

export const META_TOKEN_PURGE: MaintenanceJob = {
  name: 'stale meta-tokens',
  run: (db, now) => purgeMetaTokens(db, now),
};
