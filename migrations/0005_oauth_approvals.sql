CREATE TABLE "management"."oauth_approvals" (
	"user_id" bigint NOT NULL,
	"client_id" text NOT NULL,
	"scope" text NOT NULL,
	"status" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"last_modified_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "oauth_approvals_user_id_client_id_scope_pk" PRIMARY KEY("user_id","client_id","scope")
);
--> statement-breakpoint
ALTER TABLE "management"."oauth_approvals" ADD CONSTRAINT "oauth_approvals_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "management"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "management"."oauth_approvals" ADD CONSTRAINT "oauth_approvals_client_id_oauth_client_details_client_id_fk" FOREIGN KEY ("client_id") REFERENCES "management"."oauth_client_details"("client_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "oauth_approvals_expires_at_idx" ON "management"."oauth_approvals" USING btree ("expires_at");