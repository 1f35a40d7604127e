CREATE TABLE "management"."oauth_codes" (
	"code_hash" text PRIMARY KEY NOT NULL,
	"client_id" text NOT NULL,
	"user_login" text NOT NULL,
	"redirect_uri" text NOT NULL,
	"redirect_uri_given" boolean NOT NULL,
	"scope" text[] DEFAULT '{}'::text[] NOT NULL,
	"code_challenge" text,
	"code_challenge_method" text,
	"family_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "management"."oauth_sessions" (
	"id" text PRIMARY KEY NOT NULL,
	"csrf_token" text NOT NULL,
	"user_login" text,
	"authenticated_at" timestamp with time zone,
	"pending" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "management"."server_secrets" (
	"name" text PRIMARY KEY NOT NULL,
	"value" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "oauth_codes_expires_at_idx" ON "management"."oauth_codes" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "oauth_sessions_expires_at_idx" ON "management"."oauth_sessions" USING btree ("expires_at");