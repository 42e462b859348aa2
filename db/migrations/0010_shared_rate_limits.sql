-- Hand-edited: UNLOGGED, which drizzle-kit does not express. A bucket is a few seconds of
-- state; writing WAL for it on every API request would cost more than it keeps.
CREATE UNLOGGED TABLE "rate_buckets" (
	"key" text PRIMARY KEY NOT NULL,
	"tokens" double precision NOT NULL,
	"allowed" boolean NOT NULL,
	"at" timestamp with time zone NOT NULL
);
