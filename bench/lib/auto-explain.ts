import type postgres from "postgres";

/**
 * From here on, every statement this connection runs has its EXPLAIN (ANALYZE, BUFFERS)
 * sent back as a NOTICE (the client's `onnotice` collects them): the plans of the code's
 * own statements, not of copies of them. Needs a superuser (LOAD).
 */
export async function enableAutoExplain(client: postgres.Sql): Promise<void> {
  await client.unsafe(`LOAD 'auto_explain'`);
  await client.unsafe(`SET auto_explain.log_min_duration = 0; SET auto_explain.log_analyze = on;
    SET auto_explain.log_buffers = on; SET auto_explain.log_level = notice`);
}
