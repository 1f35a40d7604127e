CREATE TABLE "appserver"."github_responses" (
	"url" text PRIMARY KEY NOT NULL,
	"body" text NOT NULL,
	"content_type" text NOT NULL,
	"fetched_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "appserver"."protocol_files" (
	"source" text NOT NULL,
	"path" text NOT NULL,
	"sha" text NOT NULL,
	"content" text NOT NULL,
	"fetched_at" timestamp with time zone NOT NULL,
	CONSTRAINT "protocol_files_pkey" PRIMARY KEY("source","path")
);
