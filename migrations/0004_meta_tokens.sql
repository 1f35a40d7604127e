CREATE TABLE "management"."meta_tokens" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"token_name" text NOT NULL,
	"fetched" boolean DEFAULT false NOT NULL,
	"expiry_date" timestamp with time zone NOT NULL,
	"subject_id" bigint NOT NULL,
	"client_id" text NOT NULL,
	"persistent" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "management"."meta_tokens" ADD CONSTRAINT "meta_tokens_subject_id_subjects_id_fk" FOREIGN KEY ("subject_id") REFERENCES "management"."subjects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "meta_tokens_token_name_key" ON "management"."meta_tokens" USING btree ("token_name");--> statement-breakpoint
CREATE INDEX "meta_tokens_subject_id_idx" ON "management"."meta_tokens" USING btree ("subject_id");--> statement-breakpoint
CREATE INDEX "meta_tokens_expiry_date_idx" ON "management"."meta_tokens" USING btree ("expiry_date");