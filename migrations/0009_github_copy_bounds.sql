ALTER TABLE "appserver"."github_responses" ADD COLUMN "size" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "appserver"."github_responses" ADD COLUMN "last_used_at" timestamp with time zone DEFAULT now() NOT NULL;--> statement-breakpoint
-- Copies stored before these columns: their size from the body, their last use taken as their fetch.
UPDATE "appserver"."github_responses" SET "size" = octet_length("body"), "last_used_at" = "fetched_at";