/**
 * The permission of every app-server API route (appserver.md §1 permission column, the
 * reference's `@Authorized(permission, entity)`), as `ENTITY.OPERATION`. A route is named by its
 * method and its path inside the app server's prefix, as Fastify registers it.
 *
 * Adding a route means adding its line here: the app server refuses to start while a route has
 * none (guard.ts), so no route is ever open by mistake. The ids a permission is checked on come
 * from the path (`projectId`, `subjectId`), else from the token as radar-spring-auth 1.2.1 fills
 * them for any `permissionOn`: the project of the token's first role, the token's `sub`.
 *
 * So where the path names no subject, a participant passes a `SUBJECT.*` line on its own subject
 * (issue 28). Such a line may only be a route the questionnaire app calls with its own token (its
 * comment says so, clients.md §2.1), a list filtered to the token's own rows, or an id route that
 * then checks the found row's project and subject; a write to the project itself needs
 * `PROJECT.UPDATE`, which no participant holds.
 */
import type { AppPermission } from './oracle.js';

const P = '/projects/:projectId';
const U = `${P}/users/:subjectId`;
const N = `${U}/messaging/notifications`;
const D = `${U}/messaging/data`;

export const ROUTE_PERMISSIONS: Readonly<Record<string, AppPermission>> = {
  // Projects (§1.1)
  // P1; aRMT creates its own project with its token (reference rule); the body's project is checked in the route (401)
  'POST /projects': 'SUBJECT.READ',
  [`POST ${P}`]: 'SUBJECT.READ', // P1 with the project in the path: the same create, of the path's project only
  // P2. Reference bug fixed (issue 28): SUBJECT.UPDATE, with the subject filled from `sub`, let a
  // participant rename its project, handing its participants to another project's admins.
  [`PUT ${P}`]: 'PROJECT.UPDATE',
  'GET /projects': 'PROJECT.READ', // P3, filtered
  'GET /projects/project': 'PROJECT.READ', // P4; the found project is checked in the route (401)
  [`GET ${P}`]: 'SUBJECT.READ', // P5; aRMT reads its project with its token (reference rule): the project row, no subject's data
  // Users (§1.2)
  // U1; aRMT registers itself with its token (reference rule); the body's subject is checked in the route (401)
  [`POST ${P}/users`]: 'SUBJECT.UPDATE',
  'POST /project/:projectId/users': 'SUBJECT.UPDATE', // U1, the seed's spelling; the same check on the body's subject
  [`POST ${U}`]: 'SUBJECT.UPDATE', // U1 with the subject in the path
  [`PUT ${U}`]: 'SUBJECT.UPDATE', // U2
  'GET /users': 'SUBJECT.READ', // U3, filtered (a participant: its own rows)
  'GET /users/user': 'SUBJECT.READ', // U4; the found user is checked in the route (401)
  'GET /users/:subjectId': 'SUBJECT.READ', // U5; likewise
  [`GET ${P}/users`]: 'SUBJECT.READ', // U6, filtered (a participant: its own rows)
  [`GET ${U}`]: 'SUBJECT.READ', // U7
  [`DELETE ${U}`]: 'SUBJECT.UPDATE', // U8
  // Notifications (§1.3) and their state events (§1.4)
  'GET /messaging/notifications': 'PROJECT.READ', // N1, filtered
  'GET /messaging/notifications/filtered': 'PROJECT.READ', // N3, filtered
  'GET /messaging/notifications/:id': 'SUBJECT.UPDATE', // N2; then the notification's own project and subject
  [`GET ${P}/messaging/notifications`]: 'SUBJECT.READ', // N5, filtered (a participant: its own rows)
  [`GET ${N}`]: 'SUBJECT.READ', // N4
  [`POST ${N}`]: 'SUBJECT.UPDATE', // N6
  'POST /project/:projectId/users/:subjectId/notifications': 'SUBJECT.UPDATE', // N6, the seed's spelling
  [`POST ${N}/batch`]: 'SUBJECT.UPDATE', // N9
  [`PUT ${N}`]: 'SUBJECT.UPDATE', // N10
  [`POST ${N}/schedule`]: 'SUBJECT.UPDATE', // N7
  [`POST ${N}/:notificationId/schedule`]: 'SUBJECT.UPDATE', // N8
  [`DELETE ${N}/all`]: 'SUBJECT.UPDATE', // N11
  [`DELETE ${N}/tasks/:id`]: 'SUBJECT.UPDATE', // N13
  [`DELETE ${N}/:notificationId`]: 'SUBJECT.UPDATE', // N12
  'GET /messaging/notifications/:notificationId/state_events': 'PROJECT.READ', // E1; then the notification's own project and subject
  [`GET ${N}/:notificationId/state_events`]: 'SUBJECT.READ', // E2
  [`POST ${N}/:notificationId/state_events`]: 'SUBJECT.UPDATE', // E3
  // Data messages (§1.5)
  'GET /messaging/data': 'PROJECT.READ', // D1, filtered
  'GET /messaging/data/filtered': 'PROJECT.READ', // D3, filtered
  'GET /messaging/data/:id': 'SUBJECT.READ', // D2; then the message's own project and subject
  [`GET ${P}/messaging/data`]: 'SUBJECT.READ', // D5, filtered (a participant: its own rows)
  [`GET ${D}`]: 'SUBJECT.READ', // D4
  [`POST ${D}`]: 'SUBJECT.UPDATE', // D6
  [`POST ${D}/batch`]: 'SUBJECT.UPDATE', // D7
  [`PUT ${D}`]: 'SUBJECT.UPDATE', // D8
  [`DELETE ${D}/all`]: 'SUBJECT.UPDATE', // D9
  [`DELETE ${D}/:id`]: 'SUBJECT.UPDATE', // D10
  // Protocols (§1.6) and the GitHub proxy (§1.7)
  'GET /protocols': 'PROJECT.READ', // R1, filtered
  [`GET ${U}/protocols`]: 'SUBJECT.READ', // R2
  [`GET ${P}/protocols`]: 'PROJECT.READ', // R3
  'GET /github/content': 'SUBJECT.READ', // G1; aRMT fetches its protocol through it with its token (reference rule): GitHub's content, no subject's data
  // Questionnaire schedule (§1.8) and task state events (§1.9)
  [`POST ${U}/questionnaire/schedule`]: 'SUBJECT.UPDATE', // Q1
  [`PUT ${U}/questionnaire/schedule`]: 'SUBJECT.UPDATE', // Q2
  [`GET ${U}/questionnaire/schedule`]: 'SUBJECT.READ', // Q3
  [`DELETE ${U}/questionnaire/schedule`]: 'SUBJECT.UPDATE', // Q4
  'GET /questionnaire/schedule/:taskId/state_events': 'SUBJECT.UPDATE', // T1; then the task's own project and subject
  [`GET ${U}/questionnaire/schedule/:taskId/state_events`]: 'SUBJECT.UPDATE', // T2
  [`POST ${U}/questionnaire/schedule/:taskId/state_events`]: 'SUBJECT.UPDATE', // T3
  // File upload (UploadController, served with RADAR_FILE_UPLOAD_ENABLED): the reference's
  // `@Authorized(MEASUREMENT.CREATE, permissionOn = SUBJECT)`; aRMT uploads with its participant's token
  [`POST ${U}/files/topics/:topicId/upload`]: 'MEASUREMENT.CREATE',
};
