CREATE TABLE "insight_hour_counts" (
	"queue" text NOT NULL,
	"hour" timestamp with time zone NOT NULL,
	"type" "event_type" NOT NULL,
	"actor_id" uuid,
	"n" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "insight_hour_samples" (
	"queue" text NOT NULL,
	"hour" timestamp with time zone NOT NULL,
	"population" text NOT NULL,
	"metric" text NOT NULL,
	"bucket" integer NOT NULL,
	"n" integer NOT NULL,
	"min_ms" double precision NOT NULL,
	"max_ms" double precision NOT NULL,
	CONSTRAINT "insight_hour_samples_queue_hour_population_metric_bucket_pk" PRIMARY KEY("queue","hour","population","metric","bucket")
);
--> statement-breakpoint
CREATE TABLE "insight_hours" (
	"queue" text NOT NULL,
	"hour" timestamp with time zone NOT NULL,
	"rolled_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "insight_hours_queue_hour_pk" PRIMARY KEY("queue","hour")
);
--> statement-breakpoint
CREATE INDEX "insight_hour_counts_queue_hour" ON "insight_hour_counts" USING btree ("queue","hour");