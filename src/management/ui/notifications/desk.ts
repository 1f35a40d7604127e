/**
 * What the notification pages need from the app server, declared here so the management domain
 * imports nothing of it: `app.ts` passes the app server's implementation
 * (appserver/study-notifications.ts) in. Without one (a test building the domain alone) the pages
 * say the app server is not available.
 */
export interface AppUserSummary {
  subjectId: string;
  fcmTokenSet: boolean;
  lastOpened: Date | null;
  lastDelivered: Date | null;
}

export interface NotificationSummary {
  id: number;
  title: string;
  body: string | null;
  scheduledTime: Date;
  /** The current delivery state (API state names). */
  state: string;
  /** Every state event, oldest first. */
  states: { state: string; time: Date }[];
}

export interface NotificationDesk {
  /** The project's app users; undefined when the app server does not know the project. */
  users(projectId: string): Promise<AppUserSummary[] | undefined>;
  /** A user's notifications, newest first; undefined when the app server has no such user. */
  notifications(projectId: string, subjectId: string): Promise<NotificationSummary[] | undefined>;
  /** Stores a notification due now; the scheduler sends it. */
  sendNow(projectId: string, subjectId: string, message: { title: string; body: string; sourceId: string }): Promise<{ id: number }>;
}
