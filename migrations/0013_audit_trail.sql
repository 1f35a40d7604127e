ALTER TABLE "management"."audit_events" ADD COLUMN "actor_address" text;--> statement-breakpoint
ALTER TABLE "management"."audit_events" ADD COLUMN "target_type" text;--> statement-breakpoint
ALTER TABLE "management"."audit_events" ADD COLUMN "target_id" text;--> statement-breakpoint
ALTER TABLE "management"."audit_events" ADD COLUMN "changes" jsonb;--> statement-breakpoint
CREATE INDEX "audit_events_target_idx" ON "management"."audit_events" USING btree ("target_type","target_id","id");