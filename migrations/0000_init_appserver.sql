CREATE SCHEMA "appserver";
--> statement-breakpoint
CREATE TABLE "appserver"."message_state_events" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"message_id" bigint NOT NULL,
	"state" text NOT NULL,
	"time" timestamp with time zone NOT NULL,
	"associated_info" text,
	"external" boolean DEFAULT false NOT NULL
);
--> statement-breakpoint
CREATE TABLE "appserver"."messages" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
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
	"data" jsonb,
	"title" text,
	"body" text,
	"type" text,
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
	"state" text DEFAULT 'ADDED' NOT NULL,
	"lease_until" timestamp with time zone,
	"attempts" integer DEFAULT 0 NOT NULL,
	"dedupe_key" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
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
ALTER TABLE "appserver"."message_state_events" ADD CONSTRAINT "message_state_events_message_id_messages_id_fk" FOREIGN KEY ("message_id") REFERENCES "appserver"."messages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "appserver"."messages" ADD CONSTRAINT "messages_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "appserver"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "appserver"."users" ADD CONSTRAINT "users_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "appserver"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "message_state_events_message_idx" ON "appserver"."message_state_events" USING btree ("message_id");--> statement-breakpoint
CREATE UNIQUE INDEX "messages_user_kind_dedupe_key" ON "appserver"."messages" USING btree ("user_id","kind","dedupe_key");--> statement-breakpoint
CREATE INDEX "messages_user_idx" ON "appserver"."messages" USING btree ("user_id","kind");--> statement-breakpoint
CREATE INDEX "messages_due_idx" ON "appserver"."messages" USING btree ("scheduled_time") WHERE "appserver"."messages"."state" = 'SCHEDULED';--> statement-breakpoint
CREATE INDEX "messages_task_idx" ON "appserver"."messages" USING btree ("task_id");--> statement-breakpoint
CREATE UNIQUE INDEX "projects_project_id_key" ON "appserver"."projects" USING btree ("project_id");--> statement-breakpoint
CREATE UNIQUE INDEX "users_project_subject_key" ON "appserver"."users" USING btree ("project_id","subject_id");--> statement-breakpoint
CREATE UNIQUE INDEX "users_fcm_token_key" ON "appserver"."users" USING btree ("fcm_token");--> statement-breakpoint
CREATE INDEX "users_subject_id_idx" ON "appserver"."users" USING btree ("subject_id");