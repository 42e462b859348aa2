CREATE TABLE "sign_in_failures" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "sign_in_failures_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"scope" text NOT NULL,
	"key" text NOT NULL,
	"failed_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "sign_in_failures_key" ON "sign_in_failures" USING btree ("scope","key","failed_at");--> statement-breakpoint
CREATE INDEX "task_events_actor_time" ON "task_events" USING btree ("actor_id","created_at");--> statement-breakpoint
CREATE INDEX "task_events_actor_outcomes" ON "task_events" USING btree ("actor_id","type","created_at") WHERE "task_events"."type" IN ('completed', 'failed');--> statement-breakpoint
CREATE INDEX "task_events_lapsed_owner" ON "task_events" USING btree (("payload"->>'previousOwnerId'),"created_at") WHERE "task_events"."type" = 'lease_expired';