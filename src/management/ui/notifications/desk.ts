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

/**
 * Where this instance's scheduler sends: FCM itself, an FCM emulator (no phone receives it), or
 * nowhere (`FCMSERVER_FCMSENDER=disabled`, or no FCM credentials outside prod). `scheduler` is false
 * when this instance runs no scheduler (`SCHEDULER_ENABLED=false`): another instance must send.
 */
export interface PushRoute { mode: 'fcm' | 'emulator' | 'disabled'; emulatorHost?: string | undefined; scheduler: boolean }

export interface NotificationDesk {
  /** Where a test notification would go from here (the page says so before a coordinator sends). */
  readonly push: PushRoute;
  /** The project's app users; undefined when the app server does not know the project. */
  users(projectId: string): Promise<AppUserSummary[] | undefined>;
  /** A user's notifications, newest first; undefined when the app server has no such user. */
  notifications(projectId: string, subjectId: string): Promise<NotificationSummary[] | undefined>;
  /** Stores a notification due now; the scheduler sends it. */
  sendNow(projectId: string, subjectId: string, message: { title: string; body: string; sourceId: string }): Promise<{ id: number }>;
}
