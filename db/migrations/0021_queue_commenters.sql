CREATE TYPE "public"."commenters" AS ENUM('anyone', 'people', 'supervisors');--> statement-breakpoint
ALTER TABLE "queues" ADD COLUMN "commenters" "commenters" DEFAULT 'anyone' NOT NULL;