import { connectDatabase } from "@/db/client";
import { authenticateAndCount, authenticateToken, createAgentToken } from "@/lib/auth/tokens";
import { TOKEN_KEY_PREFIX, type Limit } from "@/lib/http/rate-limit";
import { paired, ratioRow, type Row } from "./lib/report";
import { seconds } from "./lib/stats";

/** Far above what the run asks, so every take is allowed: the row prices the bookkeeping, not refusals. */
const GENEROUS: Limit = { capacity: 1e9, perSecond: 1e9 };

/**
 * `limits-cost`: what the shared rate limit adds to every API request. A request's token is
 * looked up by one prepared statement that also takes from the token's bucket in
 * rate_buckets (lib/auth/tokens.ts, `authenticateAndCount`); the baseline is the lookup
 * without its bucket (`authenticateToken`), which every request needs anyway. `clients`
 * concurrent callers, each with its own token (as agents have), alternated in one run;
 * lookups per second.
 */
export async function limitsRow(url: string, clients: number, perClient: number, reps: number): Promise<Row> {
  const { db, client } = connectDatabase(url, { max: clients, applicationName: "bench-limits" });
  try {
    const tokens: string[] = [];
    for (let i = 0; i < clients; i++) tokens.push((await createAgentToken(db, { name: `bench-limits-${i}` })).token);
    const lookupOnly = async (token: string) => {
      if (!(await authenticateToken(db, token))) throw new Error("lookup found no token");
    };
    const withBucket = async (token: string) => {
      const found = await authenticateAndCount(db, token, GENEROUS);
      if (!found || found.wait !== 0) throw new Error("the counted lookup refused a token");
    };
    const rate = async (call: (token: string) => Promise<void>) => {
      const t0 = performance.now();
      await Promise.all(tokens.map(async (token) => {
        for (let i = 0; i < perClient; i++) await call(token);
      }));
      return (clients * perClient) / seconds(t0);
    };
    await rate(withBucket); // warm: each connection prepares both statements, each bucket row exists
    await rate(lookupOnly);
    const p = await paired(reps, () => rate(withBucket), () => rate(lookupOnly));
    const bucketKeys = await client`SELECT count(*)::int AS n FROM rate_buckets WHERE key LIKE ${`${TOKEN_KEY_PREFIX}%`}`;
    return ratioRow("limits-cost", `token lookups/s with the rate-limit take ÷ without, ${clients} clients (own tokens)`, p, undefined,
      `${bucketKeys[0]!.n} token buckets; per lookup ${(1000 / p.a.median * clients).toFixed(2)} ms with, ${(1000 / p.b.median * clients).toFixed(2)} ms without (latency at ${clients} concurrent)`);
  } finally {
    await client.end();
  }
}
