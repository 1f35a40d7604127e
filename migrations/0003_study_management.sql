CREATE TABLE "management"."groups" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"project_id" bigint NOT NULL,
	"name" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "management"."project_source_types" (
	"project_id" bigint NOT NULL,
	"source_type_id" bigint NOT NULL,
	CONSTRAINT "project_source_types_pkey" PRIMARY KEY("project_id","source_type_id")
);
--> statement-breakpoint
CREATE TABLE "management"."revision_changes" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"revision_id" bigint NOT NULL,
	"entity_type" text NOT NULL,
	"entity_id" bigint NOT NULL,
	"entity_key" text,
	"revision_type" text NOT NULL,
	"entity" jsonb NOT NULL,
	CONSTRAINT "revision_changes_type" CHECK (revision_type in ('ADD', 'MOD', 'DEL'))
);
--> statement-breakpoint
CREATE TABLE "management"."revisions" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"timestamp" timestamp with time zone DEFAULT now() NOT NULL,
	"author" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "management"."source_data" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"source_data_type" text NOT NULL,
	"source_data_name" text NOT NULL,
	"frequency" text,
	"unit" text,
	"processing_state" text,
	"data_class" text,
	"key_schema" text,
	"value_schema" text,
	"topic" text,
	"provider" text,
	"enabled" boolean DEFAULT true NOT NULL,
	"source_type_id" bigint,
	"created_by" text DEFAULT 'system' NOT NULL,
	"created_date" timestamp with time zone DEFAULT now() NOT NULL,
	"last_modified_by" text,
	"last_modified_date" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "management"."projects" ADD COLUMN "attributes" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "management"."subjects" ADD COLUMN "group_id" bigint;--> statement-breakpoint
ALTER TABLE "management"."groups" ADD CONSTRAINT "groups_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "management"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "management"."project_source_types" ADD CONSTRAINT "project_source_types_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "management"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "management"."project_source_types" ADD CONSTRAINT "project_source_types_source_type_id_source_types_id_fk" FOREIGN KEY ("source_type_id") REFERENCES "management"."source_types"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "management"."revision_changes" ADD CONSTRAINT "revision_changes_revision_id_revisions_id_fk" FOREIGN KEY ("revision_id") REFERENCES "management"."revisions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "management"."source_data" ADD CONSTRAINT "source_data_source_type_id_source_types_id_fk" FOREIGN KEY ("source_type_id") REFERENCES "management"."source_types"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "groups_project_name_key" ON "management"."groups" USING btree ("project_id","name");--> statement-breakpoint
CREATE INDEX "project_source_types_source_type_id_idx" ON "management"."project_source_types" USING btree ("source_type_id");--> statement-breakpoint
CREATE INDEX "revision_changes_revision_id_idx" ON "management"."revision_changes" USING btree ("revision_id");--> statement-breakpoint
CREATE INDEX "revision_changes_entity_idx" ON "management"."revision_changes" USING btree ("entity_type","entity_id","revision_id");--> statement-breakpoint
CREATE INDEX "revision_changes_key_idx" ON "management"."revision_changes" USING btree ("entity_type","entity_key","revision_id");--> statement-breakpoint
CREATE UNIQUE INDEX "source_data_name_key" ON "management"."source_data" USING btree ("source_data_name");--> statement-breakpoint
CREATE INDEX "source_data_source_type_id_idx" ON "management"."source_data" USING btree ("source_type_id");--> statement-breakpoint
ALTER TABLE "management"."subjects" ADD CONSTRAINT "subjects_group_id_groups_id_fk" FOREIGN KEY ("group_id") REFERENCES "management"."groups"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "sources_project_id_idx" ON "management"."sources" USING btree ("project_id");--> statement-breakpoint
CREATE INDEX "subjects_group_id_idx" ON "management"."subjects" USING btree ("group_id");--> statement-breakpoint
CREATE INDEX "subjects_enrollment_date_idx" ON "management"."subjects" USING btree ("enrollment_date");--> statement-breakpoint
CREATE INDEX "subjects_date_of_birth_idx" ON "management"."subjects" USING btree ("date_of_birth");