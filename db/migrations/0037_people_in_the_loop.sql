-- Migration 0037: what people are told, and how long their holding lasts.
-- A person's browser notifications by kind (docs/attention.md, "Notifications"): the kinds
-- they turned off, kept on the server so every browser they sign in to follows the same choice.
-- Empty (the default): every kind is on.
ALTER TABLE "users" ADD COLUMN "notifications_off" text[] DEFAULT '{}'::text[] NOT NULL;
--> statement-breakpoint
-- A person's holding follows the person (docs/attention.md, "A person's lease"): their leases are
-- renewed while they were active in the app within person_idle_seconds (0: the lease alone);
-- after a person's lease lapses, agents may claim the task only person_grace_seconds later.
ALTER TABLE "queues" ADD COLUMN "person_idle_seconds" integer DEFAULT 1800 NOT NULL;
--> statement-breakpoint
ALTER TABLE "queues" ADD COLUMN "person_grace_seconds" integer DEFAULT 300 NOT NULL;
--> statement-breakpoint
ALTER TABLE "queues" ADD CONSTRAINT "queues_person_idle_seconds_range" CHECK ("queues"."person_idle_seconds" BETWEEN 0 AND 86400);
--> statement-breakpoint
ALTER TABLE "queues" ADD CONSTRAINT "queues_person_grace_seconds_range" CHECK ("queues"."person_grace_seconds" BETWEEN 0 AND 3600);
