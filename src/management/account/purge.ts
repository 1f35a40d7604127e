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
import { and, eq, exists, inArray, lt, ne, not } from 'drizzle-orm';
import type { MaintenanceJob } from '../maintenance.js';
import { recordRevision } from '../api/revisions/queries.js';
import { roles, roleUsers, subjects, users } from '../schema.js';
import { ADMIN_LOGIN } from './admin-account.js';
import { loadUserDtos } from '../api/users/queries.js';

export const NOT_ACTIVATED_GRACE_MS = 3 * 24 * 60 * 60 * 1000;
const PARTICIPANT_AUTHORITIES = ['ROLE_PARTICIPANT', 'ROLE_INACTIVE_PARTICIPANT'];
/** Accounts deleted per run at most (the next run takes the rest). */
const BATCH = 500;

export const NOT_ACTIVATED_USERS_PURGE: MaintenanceJob = {
  name: 'users never activated',
  async run(db, now) {
    return db.transaction(async (tx) => {
      const participantRole = tx.select({ one: roleUsers.userId }).from(roleUsers)
        .innerJoin(roles, eq(roles.id, roleUsers.roleId))
        .where(and(eq(roleUsers.userId, users.id), inArray(roles.authorityName, PARTICIPANT_AUTHORITIES)));
      const subject = tx.select({ one: subjects.id }).from(subjects).where(eq(subjects.userId, users.id));
      const stale = await tx.select().from(users)
        .where(and(
          eq(users.activated, false),
          ne(users.login, ADMIN_LOGIN),
          lt(users.createdDate, new Date(now.getTime() - NOT_ACTIVATED_GRACE_MS)),
          not(exists(participantRole)),
          not(exists(subject)),
        ))
        .orderBy(users.id)
        .limit(BATCH)
        .for('update', { skipLocked: true });
      if (stale.length === 0) return 0;
      const dtos = await loadUserDtos(tx, stale);
      await tx.delete(users).where(inArray(users.id, stale.map((u) => u.id)));
      await recordRevision(tx, 'system', stale.map((u, i) => ({
        entityType: 'user' as const, entityId: u.id, entityKey: u.login, revisionType: 'DEL' as const, entity: dtos[i]!,
      })), now);
      return stale.length;
    });
  },
};
