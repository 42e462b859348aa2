import { encode } from "next-auth/jwt";
import { connectDatabase } from "@/db/client";
import { createUser } from "@/lib/auth/users";
import { KeepAliveClient } from "./lib/http-client";
import { SESSION_SECRET, type BenchServerProcess } from "./lib/server";
import { percentile } from "./lib/stats";

/** A signed-in person's session cookie, minted as next-auth's JWT callback would (token.actorId). */
export async function sessionCookie(url: string, email: string): Promise<string> {
  const { db, client } = connectDatabase(url, { max: 1 });
  try {
    const user = await createUser(db, { email, name: "Bench Viewer", role: "staff", password: "bench-password" });
    const jwt = await encode({ token: { sub: user.actor.id, actorId: user.actor.id, email }, secret: SESSION_SECRET });
    return `next-auth.session-token=${jwt}`;
  } finally {
    await client.end();
  }
}

/** Median (ms) of `requests` full responses of the board page (GET /), one at a time. */
export async function boardMedian(server: BenchServerProcess, cookie: string, requests: number): Promise<number> {
  const client = new KeepAliveClient(server.url, 1);
  try {
    const times: number[] = [];
    for (let i = 0; i < requests; i++) {
      const t0 = performance.now();
      const r = await client.request("GET", "/", { cookie });
      if (r.status !== 200 || !r.text.includes("Board")) throw new Error(`board answered ${r.status}: ${r.text.slice(0, 300)}`);
      times.push(performance.now() - t0);
    }
    return percentile(times, 50);
  } finally {
    client.close();
  }
}
