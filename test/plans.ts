import postgres from "postgres";

/**
 * A connection of its own that reports the plan of every statement it runs (auto_explain at
 * notice level), for the tests that check the plans of the code's own statements. One
 * connection, since LOAD and SET hold for a session. `plans` gathers the reports; a test
 * empties it (`plans.length = 0`) before the read it checks. `nested` adds the statements run
 * inside functions and triggers.
 */
export async function planReporter(url: string, { nested = false } = {}): Promise<{ client: postgres.Sql; plans: string[] }> {
  const plans: string[] = [];
  const client = postgres(url, { max: 1, onnotice: (notice) => void plans.push(String(notice.message)), connection: { TimeZone: "UTC" } });
  await client.unsafe(`LOAD 'auto_explain'`);
  await client.unsafe(`SET auto_explain.log_min_duration = 0; SET auto_explain.log_level = notice${nested ? "; SET auto_explain.log_nested_statements = on" : ""}`);
  return { client, plans };
}
