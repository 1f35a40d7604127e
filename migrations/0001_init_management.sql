CREATE SCHEMA "management";
--> statement-breakpoint
CREATE TABLE "management"."audit_events" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"principal" text NOT NULL,
	"event_date" timestamp with time zone DEFAULT now() NOT NULL,
	"event_type" text NOT NULL,
	"data" jsonb DEFAULT '{}'::jsonb NOT NULL
);
--> statement-breakpoint
CREATE TABLE "management"."authorities" (
	"name" text PRIMARY KEY NOT NULL
);
--> statement-breakpoint
CREATE TABLE "management"."oauth_client_details" (
	"client_id" text PRIMARY KEY NOT NULL,
	"resource_ids" text[] DEFAULT '{}'::text[] NOT NULL,
	"client_secret" text,
	"scope" text[] DEFAULT '{}'::text[] NOT NULL,
	"authorized_grant_types" text[] DEFAULT '{}'::text[] NOT NULL,
	"web_server_redirect_uri" text[] DEFAULT '{}'::text[] NOT NULL,
	"authorities" text[] DEFAULT '{}'::text[] NOT NULL,
	"access_token_validity" integer,
	"refresh_token_validity" integer,
	"additional_information" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"autoapprove" text[] DEFAULT '{}'::text[] NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "management"."organizations" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"description" text NOT NULL,
	"location" text NOT NULL,
	"created_by" text DEFAULT 'system' NOT NULL,
	"created_date" timestamp with time zone DEFAULT now() NOT NULL,
	"last_modified_by" text,
	"last_modified_date" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "management"."projects" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"project_name" text NOT NULL,
	"description" text NOT NULL,
	"organization_name" text,
	"organization_id" bigint,
	"location" text NOT NULL,
	"start_date" timestamp with time zone,
	"end_date" timestamp with time zone,
	"project_status" text,
	"created_by" text DEFAULT 'system' NOT NULL,
	"created_date" timestamp with time zone DEFAULT now() NOT NULL,
	"last_modified_by" text,
	"last_modified_date" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "management"."refresh_tokens" (
	"jti" text PRIMARY KEY NOT NULL,
	"family_id" text NOT NULL,
	"parent_jti" text,
	"client_id" text NOT NULL,
	"user_login" text,
	"issued_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone,
	"revoked_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "management"."role_users" (
	"user_id" bigint NOT NULL,
	"role_id" bigint NOT NULL,
	CONSTRAINT "role_users_pkey" PRIMARY KEY("user_id","role_id")
);
--> statement-breakpoint
CREATE TABLE "management"."roles" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"authority_name" text NOT NULL,
	"project_id" bigint,
	"organization_id" bigint,
	CONSTRAINT "roles_one_referent" CHECK (project_id is null or organization_id is null)
);
--> statement-breakpoint
CREATE TABLE "management"."source_types" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"producer" text NOT NULL,
	"model" text NOT NULL,
	"catalog_version" text NOT NULL,
	"source_type_scope" text NOT NULL,
	"dynamic_registration" boolean DEFAULT false NOT NULL,
	"name" text,
	"description" text,
	"assessment_type" text,
	"app_provider" text,
	"created_by" text DEFAULT 'system' NOT NULL,
	"created_date" timestamp with time zone DEFAULT now() NOT NULL,
	"last_modified_by" text,
	"last_modified_date" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "management"."sources" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"source_id" uuid DEFAULT gen_random_uuid() NOT NULL,
	"source_name" text NOT NULL,
	"expected_source_name" text,
	"assigned" boolean DEFAULT false NOT NULL,
	"deleted" boolean DEFAULT false NOT NULL,
	"source_type_id" bigint,
	"project_id" bigint,
	"subject_id" bigint,
	"attributes" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_by" text DEFAULT 'system' NOT NULL,
	"created_date" timestamp with time zone DEFAULT now() NOT NULL,
	"last_modified_by" text,
	"last_modified_date" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "management"."subjects" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"user_id" bigint NOT NULL,
	"external_link" text,
	"external_id" text,
	"removed" boolean DEFAULT false NOT NULL,
	"date_of_birth" date,
	"enrollment_date" timestamp with time zone,
	"person_name" text,
	"attributes" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_by" text DEFAULT 'system' NOT NULL,
	"created_date" timestamp with time zone DEFAULT now() NOT NULL,
	"last_modified_by" text,
	"last_modified_date" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "management"."users" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"login" text NOT NULL,
	"password_hash" text,
	"first_name" text,
	"last_name" text,
	"email" text,
	"activated" boolean DEFAULT false NOT NULL,
	"lang_key" text,
	"activation_key" text,
	"reset_key" text,
	"reset_date" timestamp with time zone,
	"created_by" text DEFAULT 'system' NOT NULL,
	"created_date" timestamp with time zone DEFAULT now() NOT NULL,
	"last_modified_by" text,
	"last_modified_date" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "management"."projects" ADD CONSTRAINT "projects_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "management"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "management"."role_users" ADD CONSTRAINT "role_users_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "management"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "management"."role_users" ADD CONSTRAINT "role_users_role_id_roles_id_fk" FOREIGN KEY ("role_id") REFERENCES "management"."roles"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "management"."roles" ADD CONSTRAINT "roles_authority_name_authorities_name_fk" FOREIGN KEY ("authority_name") REFERENCES "management"."authorities"("name") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "management"."roles" ADD CONSTRAINT "roles_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "management"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "management"."roles" ADD CONSTRAINT "roles_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "management"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "management"."sources" ADD CONSTRAINT "sources_source_type_id_source_types_id_fk" FOREIGN KEY ("source_type_id") REFERENCES "management"."source_types"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "management"."sources" ADD CONSTRAINT "sources_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "management"."projects"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "management"."sources" ADD CONSTRAINT "sources_subject_id_subjects_id_fk" FOREIGN KEY ("subject_id") REFERENCES "management"."subjects"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "management"."subjects" ADD CONSTRAINT "subjects_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "management"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "audit_events_principal_date_idx" ON "management"."audit_events" USING btree ("principal","event_date");--> statement-breakpoint
CREATE INDEX "audit_events_date_idx" ON "management"."audit_events" USING btree ("event_date");--> statement-breakpoint
CREATE UNIQUE INDEX "organizations_name_key" ON "management"."organizations" USING btree ("name");--> statement-breakpoint
CREATE UNIQUE INDEX "projects_project_name_key" ON "management"."projects" USING btree ("project_name");--> statement-breakpoint
CREATE INDEX "refresh_tokens_family_id_idx" ON "management"."refresh_tokens" USING btree ("family_id");--> statement-breakpoint
CREATE INDEX "refresh_tokens_expires_at_idx" ON "management"."refresh_tokens" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "role_users_role_id_idx" ON "management"."role_users" USING btree ("role_id");--> statement-breakpoint
CREATE UNIQUE INDEX "roles_project_authority_key" ON "management"."roles" USING btree ("project_id","authority_name");--> statement-breakpoint
CREATE UNIQUE INDEX "roles_organization_authority_key" ON "management"."roles" USING btree ("organization_id","authority_name");--> statement-breakpoint
CREATE UNIQUE INDEX "roles_global_authority_key" ON "management"."roles" USING btree ("authority_name") WHERE project_id is null and organization_id is null;--> statement-breakpoint
CREATE UNIQUE INDEX "source_types_producer_model_version_key" ON "management"."source_types" USING btree ("producer","model","catalog_version");--> statement-breakpoint
CREATE UNIQUE INDEX "sources_source_id_key" ON "management"."sources" USING btree ("source_id");--> statement-breakpoint
CREATE UNIQUE INDEX "sources_source_name_key" ON "management"."sources" USING btree ("source_name");--> statement-breakpoint
CREATE INDEX "sources_subject_id_idx" ON "management"."sources" USING btree ("subject_id");--> statement-breakpoint
CREATE UNIQUE INDEX "subjects_user_id_key" ON "management"."subjects" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "subjects_external_id_idx" ON "management"."subjects" USING btree ("external_id");--> statement-breakpoint
CREATE UNIQUE INDEX "users_login_key" ON "management"."users" USING btree ("login");--> statement-breakpoint
CREATE UNIQUE INDEX "users_email_key" ON "management"."users" USING btree ("email");