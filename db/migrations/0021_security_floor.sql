CREATE TYPE "public"."commenters" AS ENUM('anyone', 'people', 'supervisors');--> statement-breakpoint
ALTER TYPE "public"."event_type" ADD VALUE 'dependency_removed' BEFORE 'unblocked';--> statement-breakpoint
CREATE TABLE "sign_in_backoff" (
	"scope" text NOT NULL,
	"key" text NOT NULL,
	"failures" integer NOT NULL,
	"next_at" timestamp with time zone NOT NULL,
	"last_at" timestamp with time zone NOT NULL,
	CONSTRAINT "sign_in_backoff_scope_key_pk" PRIMARY KEY("scope","key")
);
--> statement-breakpoint
CREATE TABLE "password_resets" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"actor_id" uuid NOT NULL,
	"created_by" uuid NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "sign_in_failures" DISABLE ROW LEVEL SECURITY;--> statement-breakpoint
DROP TABLE "sign_in_failures" CASCADE;--> statement-breakpoint
ALTER TABLE "queues" ADD COLUMN "commenters" "commenters" DEFAULT 'anyone' NOT NULL;--> statement-breakpoint
ALTER TABLE "agent_tokens" ADD COLUMN "created_by" uuid;--> statement-breakpoint
ALTER TABLE "password_resets" ADD CONSTRAINT "password_resets_actor_id_actors_id_fk" FOREIGN KEY ("actor_id") REFERENCES "public"."actors"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "password_resets" ADD CONSTRAINT "password_resets_created_by_actors_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."actors"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "sign_in_backoff_next" ON "sign_in_backoff" USING btree ("next_at");--> statement-breakpoint
CREATE INDEX "password_resets_actor" ON "password_resets" USING btree ("actor_id");--> statement-breakpoint
ALTER TABLE "agent_tokens" ADD CONSTRAINT "agent_tokens_created_by_actors_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."actors"("id") ON DELETE no action ON UPDATE no action;