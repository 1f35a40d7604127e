CREATE SCHEMA "import";
--> statement-breakpoint
CREATE TABLE "import"."runs" (
	"id" text PRIMARY KEY NOT NULL,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone,
	"sources" jsonb NOT NULL,
	"report" jsonb
);
--> statement-breakpoint
CREATE TABLE "import"."imported_rows" (
	"source" text NOT NULL,
	"source_table" text NOT NULL,
	"source_key" text NOT NULL,
	"target_key" text NOT NULL,
	"content_hash" text NOT NULL,
	"imported_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "imported_rows_pkey" PRIMARY KEY("source","source_table","source_key")
);
--> statement-breakpoint
CREATE INDEX "imported_rows_target_idx" ON "import"."imported_rows" USING btree ("source","source_table","target_key");