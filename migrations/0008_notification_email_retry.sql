ALTER TABLE "appserver"."messages" ADD COLUMN "email_state" text;--> statement-breakpoint
ALTER TABLE "appserver"."messages" ADD COLUMN "email_attempts" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "appserver"."messages" ADD COLUMN "email_lease_until" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "messages_email_due_idx" ON "appserver"."messages" USING btree ("id") WHERE "appserver"."messages"."email_state" = 'PENDING';