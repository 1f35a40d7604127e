CREATE SCHEMA "appserver";
--> statement-breakpoint
CREATE TABLE "appserver"."data_message_state_events" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"state" text NOT NULL,
	"time" timestamp with time zone NOT NULL,
	"associated_info" text,
	"external" boolean DEFAULT false NOT NULL,
	"data_message_id" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "appserver"."data_messages" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"user_id" bigint NOT NULL,
	"task_id" bigint,
	"source_id" text NOT NULL,
	"scheduled_time" timestamp with time zone NOT NULL,
	"ttl_seconds" integer DEFAULT 0 NOT NULL,
	"fcm_message_id" text NOT NULL,
	"fcm_topic" text,
	"fcm_condition" text,
	"delivered" boolean DEFAULT false NOT NULL,
	"app_package" text NOT NULL,
	"source_type" text NOT NULL,
	"priority" text,
	"mutable_content" boolean DEFAULT false NOT NULL,
	"state" text DEFAULT 'ADDED' NOT NULL,
	"lease_until" timestamp with time zone,
	"attempts" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"data_map" jsonb
);
--> statement-breakpoint
CREATE TABLE "appserver"."notification_state_events" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"state" text NOT NULL,
	"time" timestamp with time zone NOT NULL,
	"associated_info" text,
	"external" boolean DEFAULT false NOT NULL,
	"notification_id" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "appserver"."notifications" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"user_id" bigint NOT NULL,
	"task_id" bigint,
	"source_id" text NOT NULL,
	"scheduled_time" timestamp with time zone NOT NULL,
	"ttl_seconds" integer DEFAULT 0 NOT NULL,
	"fcm_message_id" text NOT NULL,
	"fcm_topic" text,
	"fcm_condition" text,
	"delivered" boolean DEFAULT false NOT NULL,
	"app_package" text NOT NULL,
	"source_type" text NOT NULL,
	"priority" text,
	"mutable_content" boolean DEFAULT false NOT NULL,
	"state" text DEFAULT 'ADDED' NOT NULL,
	"lease_until" timestamp with time zone,
	"attempts" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"title" text NOT NULL,
	"body" text,
	"type" text NOT NULL,
	"sound" text,
	"badge" text,
	"subtitle" text,
	"icon" text,
	"color" text,
	"body_loc_key" text,
	"body_loc_args" text,
	"title_loc_key" text,
	"title_loc_args" text,
	"android_channel_id" text,
	"tag" text,
	"click_action" text,
	"email_enabled" boolean DEFAULT false NOT NULL,
	"email_title" text,
	"email_body" text,
	"additional_data" jsonb,
	"dedupe_key" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "appserver"."projects" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "appserver"."users" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"project_id" bigint NOT NULL,
	"subject_id" text NOT NULL,
	"fcm_token" text,
	"enrolment_date" timestamp with time zone NOT NULL,
	"timezone" text NOT NULL,
	"language" text,
	"email" text,
	"attributes" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"last_opened" timestamp with time zone,
	"last_delivered" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "appserver"."data_message_state_events" ADD CONSTRAINT "data_message_state_events_data_message_id_data_messages_id_fk" FOREIGN KEY ("data_message_id") REFERENCES "appserver"."data_messages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "appserver"."data_messages" ADD CONSTRAINT "data_messages_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "appserver"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "appserver"."notification_state_events" ADD CONSTRAINT "notification_state_events_notification_id_notifications_id_fk" FOREIGN KEY ("notification_id") REFERENCES "appserver"."notifications"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "appserver"."notifications" ADD CONSTRAINT "notifications_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "appserver"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "appserver"."users" ADD CONSTRAINT "users_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "appserver"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "data_message_state_events_message_idx" ON "appserver"."data_message_state_events" USING btree ("data_message_id");--> statement-breakpoint
CREATE UNIQUE INDEX "data_messages_user_dedupe_key" ON "appserver"."data_messages" USING btree ("user_id","source_id","scheduled_time","ttl_seconds");--> statement-breakpoint
CREATE INDEX "data_messages_due_idx" ON "appserver"."data_messages" USING btree ("state","scheduled_time");--> statement-breakpoint
CREATE INDEX "notification_state_events_notification_idx" ON "appserver"."notification_state_events" USING btree ("notification_id");--> statement-breakpoint
CREATE UNIQUE INDEX "notifications_user_dedupe_key" ON "appserver"."notifications" USING btree ("user_id","dedupe_key");--> statement-breakpoint
CREATE INDEX "notifications_due_idx" ON "appserver"."notifications" USING btree ("state","scheduled_time");--> statement-breakpoint
CREATE INDEX "notifications_task_idx" ON "appserver"."notifications" USING btree ("task_id");--> statement-breakpoint
CREATE UNIQUE INDEX "projects_project_id_key" ON "appserver"."projects" USING btree ("project_id");--> statement-breakpoint
CREATE UNIQUE INDEX "users_project_subject_key" ON "appserver"."users" USING btree ("project_id","subject_id");--> statement-breakpoint
CREATE UNIQUE INDEX "users_fcm_token_key" ON "appserver"."users" USING btree ("fcm_token");--> statement-breakpoint
CREATE INDEX "users_subject_id_idx" ON "appserver"."users" USING btree ("subject_id");