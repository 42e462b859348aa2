-- A person's browser notifications by kind (docs/attention.md, "Notifications"): the kinds
-- they turned off, kept on the server so every browser they sign in to follows the same choice.
-- Empty (the default): every kind is on.
ALTER TABLE "users" ADD COLUMN "notifications_off" text[] DEFAULT '{}'::text[] NOT NULL;
