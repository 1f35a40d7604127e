/**
 * The not-activated-users purge (the reference's `UserService.removeNotActivatedUsers`,
 * managementportal.md §12): accounts never activated within three days of their creation go,
 * unless they are participants (a ROLE_PARTICIPANT or ROLE_INACTIVE_PARTICIPANT role, or a
 * subject record: a deactivated subject's account is inactive on purpose) or the built-in
 * `admin`. Each deletion records a user revision (DEL, the DTO before the delete), as every user
 * change does.
 *
 * Safe with several instances: candidates are locked with SKIP LOCKED, so two runs at once
 * delete disjoint sets and each account's revision is written once.
 */
import type { MaintenanceJob } from '../maintenance.js';
import { recordRevision } from '../api/revisions/queries.js';
import { ADMIN_LOGIN } from './admin-account.js';
import { loadUserDtos } from '../api/users/queries.js';
import { deleteUsers, lockNotActivatedUsers } from './queries.js';

export const NOT_ACTIVATED_GRACE_MS = 3 * 24 * 60 * 60 * 1000;
const PARTICIPANT_AUTHORITIES = ['ROLE_PARTICIPANT', 'ROLE_INACTIVE_PARTICIPANT'];
/** Accounts deleted per run at most (the next run takes the rest). */
const BATCH = 500;

export const NOT_ACTIVATED_USERS_PURGE: MaintenanceJob = {
  name: 'users never activated',
  async run(db, now) {
    return db.transaction(async (tx) => {
      const stale = await lockNotActivatedUsers(tx, {
        createdBefore: new Date(now.getTime() - NOT_ACTIVATED_GRACE_MS),
        exceptLogin: ADMIN_LOGIN,
        participantAuthorities: PARTICIPANT_AUTHORITIES,
        limit: BATCH,
      });
      if (stale.length === 0) return 0;
      const dtos = await loadUserDtos(tx, stale);
      await deleteUsers(tx, stale.map((u) => u.id));
      await recordRevision(tx, 'system', stale.map((u, i) => ({
        entityType: 'user' as const, entityId: u.id, entityKey: u.login, revisionType: 'DEL' as const, entity: dtos[i]!,
      })), now);
      return stale.length;
    });
  },
};
