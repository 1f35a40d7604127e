CREATE TABLE "appserver"."job_leases" (
	"name" text NOT NULL,
	"holder" text,
	"lease_until" timestamp with time zone,
	"last_started_at" timestamp with time zone,
	"last_finished_at" timestamp with time zone,
	CONSTRAINT "job_leases_pkey" PRIMARY KEY("name")
);
--> statement-breakpoint
CREATE TABLE "appserver"."schedule_inputs" (
	"user_id" bigint PRIMARY KEY NOT NULL,
	"protocol_version" text,
	"timezone" text,
	"enrolment_date" timestamp with time zone,
	"language" text,
	"attributes" jsonb,
	"covered_until" timestamp with time zone,
	"generated_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "appserver"."task_state_events" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"task_id" bigint NOT NULL,
	"state" text NOT NULL,
	"time" timestamp with time zone NOT NULL,
	"associated_info" text
);
--> statement-breakpoint
CREATE TABLE "appserver"."tasks" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"user_id" bigint NOT NULL,
	"name" text NOT NULL,
	"type" text NOT NULL,
	"timestamp" timestamp with time zone NOT NULL,
	"completion_window" bigint NOT NULL,
	"estimated_completion_time" integer DEFAULT 0 NOT NULL,
	"warning" text DEFAULT '' NOT NULL,
	"is_clinical" boolean DEFAULT false NOT NULL,
	"show_in_calendar" boolean DEFAULT true NOT NULL,
	"is_demo" boolean DEFAULT false NOT NULL,
	"priority" integer DEFAULT 0 NOT NULL,
	"n_questions" integer DEFAULT 0 NOT NULL,
	"completed" boolean DEFAULT false NOT NULL,
	"time_completed" timestamp with time zone,
	"status" text DEFAULT 'ADDED' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "appserver"."schedule_inputs" ADD CONSTRAINT "schedule_inputs_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "appserver"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "appserver"."task_state_events" ADD CONSTRAINT "task_state_events_task_id_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "appserver"."tasks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "appserver"."tasks" ADD CONSTRAINT "tasks_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "appserver"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "task_state_events_task_idx" ON "appserver"."task_state_events" USING btree ("task_id");--> statement-breakpoint
CREATE UNIQUE INDEX "tasks_user_name_timestamp_key" ON "appserver"."tasks" USING btree ("user_id","name","timestamp");--> statement-breakpoint
CREATE INDEX "tasks_user_timestamp_idx" ON "appserver"."tasks" USING btree ("user_id","timestamp");--> statement-breakpoint
ALTER TABLE "appserver"."messages" ADD CONSTRAINT "messages_task_id_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "appserver"."tasks"("id") ON DELETE set null ON UPDATE no action;