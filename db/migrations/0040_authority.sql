-- What a person set up acts with that person's authority (docs/security.md, "Authorities"): a
-- webhook or a schedule acts for whoever made it, or for the supervisor who adopted it. When
-- that authority ends (demoted, disabled, the token revoked or expired) the webhook or schedule
-- is paused with the reason until another supervisor adopts it (lib/auth/authority.ts).
ALTER TABLE "webhooks" ADD COLUMN "adopted_by" uuid, ADD COLUMN "adopted_at" timestamp with time zone,
  ADD COLUMN "authority_ended_at" timestamp with time zone, ADD COLUMN "authority_ended_reason" text;--> statement-breakpoint
ALTER TABLE "schedules" ADD COLUMN "adopted_by" uuid, ADD COLUMN "adopted_at" timestamp with time zone,
  ADD COLUMN "authority_ended_at" timestamp with time zone, ADD COLUMN "authority_ended_reason" text;
