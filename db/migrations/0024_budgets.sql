ALTER TYPE "public"."event_type" ADD VALUE 'budget_warning';--> statement-breakpoint
ALTER TYPE "public"."event_type" ADD VALUE 'budget_reached';--> statement-breakpoint
ALTER TYPE "public"."event_type" ADD VALUE 'budget_raised';--> statement-breakpoint
CREATE TABLE "actor_spend" (
	"actor_id" uuid NOT NULL,
	"month" date NOT NULL,
	"unit" text NOT NULL,
	"spent" numeric NOT NULL,
	CONSTRAINT "actor_spend_actor_id_month_unit_pk" PRIMARY KEY("actor_id","month","unit"),
	CONSTRAINT "actor_spend_nonnegative" CHECK ("actor_spend"."spent" >= 0)
);
--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "budget_limit" numeric;--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "budget_unit" text;--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "spent" numeric DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "agent_tokens" ADD COLUMN "monthly_budget_limit" numeric;--> statement-breakpoint
ALTER TABLE "agent_tokens" ADD COLUMN "monthly_budget_unit" text;--> statement-breakpoint
CREATE INDEX "tasks_spent_done" ON "tasks" USING btree ("queue","updated_at") WHERE "tasks"."status" = 'done' AND "tasks"."spent" > 0;--> statement-breakpoint
CREATE INDEX "agent_tokens_capped" ON "agent_tokens" USING btree ("actor_id") WHERE "agent_tokens"."monthly_budget_limit" IS NOT NULL;--> statement-breakpoint
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_budget" CHECK (("tasks"."budget_limit" IS NULL) = ("tasks"."budget_unit" IS NULL) AND ("tasks"."budget_limit" IS NULL OR "tasks"."budget_limit" > 0) AND "tasks"."spent" >= 0);--> statement-breakpoint
ALTER TABLE "agent_tokens" ADD CONSTRAINT "agent_tokens_monthly_budget" CHECK (("agent_tokens"."monthly_budget_limit" IS NULL) = ("agent_tokens"."monthly_budget_unit" IS NULL) AND ("agent_tokens"."monthly_budget_limit" IS NULL OR "agent_tokens"."monthly_budget_limit" > 0));