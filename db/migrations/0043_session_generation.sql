-- A person's sessions end when their password changes, is reset, or the person is disabled
-- (docs/security.md, "Sessions"): each session (a next-auth JWT) carries the generation it was
-- issued in, and a session of an older generation is refused on use (lib/auth/session.ts).
ALTER TABLE "users" ADD COLUMN "session_generation" integer DEFAULT 0 NOT NULL;
