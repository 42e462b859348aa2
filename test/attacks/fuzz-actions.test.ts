import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createAgentToken } from "@/lib/auth/tokens";
import { createActor } from "@/lib/tasks";
import { ERROR_CODES } from "@/test/http/helpers";
import { Scenes, freshQueue } from "./callers";
import { attackFixture, callAction, manifestActions, mustSignIn, stateDigest, type AttackFixture, type ManifestAction } from "./helpers";

// Every server action (from the build's manifest), posted with a supervisor's cookie — so
// the guard lets the input through to validation — with random and hostile arguments:
// wrong types and sizes, NUL bytes, lone surrogates, deep nesting, prototype-pollution
// keys, and bodies that are not the browser's encoding at all. Never a 5xx; a refusal is
// `{ok: false, error: {code, message}}` with a known code and writes nothing.
// (The API's POST routes get the same treatment in test/http/fuzz.test.ts.)

const RUNS_PER_ACTION = 40;
let f: AttackFixture;
let cookie: string;
const ids: string[] = [];

beforeAll(async () => {
  f = await attackFixture();
  const sara = await f.person("sara@example.com", "supervisor");
  cookie = await mustSignIn(f, sara.email, sara.password);
  const scenes = new Scenes(f, await createActor(f.database.db, "user", "admin"));
  const holder = await createActor(f.database.db, "agent", "holder");
  ids.push((await scenes.escalated(freshQueue())).id, (await scenes.started(freshQueue(), holder)).id, (await scenes.queued(freshQueue())).id);
  await createAgentToken(f.database.db, { name: "existing" });
});
afterAll(async () => {
  f?.expectCleanLogs();
  await f?.close();
});

const nasty = fc.constantFrom(
  "\u0000", "a\u0000b", "\ud800", "x\udfffy", "", " ", "💥", "\u202e", "x".repeat(3000), "x".repeat(300_000), "1", "0", "-1",
  "99999999999999999999", "existing", "default", "__proto__", "$1", "$@0", "$K1", "$Q1", "$undefined", "$n123", "$D2020",
);
const key = fc.constantFrom("taskId", "version", "queue", "name", "role", "title", "action", "tasks", "reason", "description",
  "leaseSeconds", "maxFailures", "payload", "__proto__", "constructor", "prototype", "then", "$$typeof", "");
const leaf = fc.oneof(fc.string({ maxLength: 12 }), fc.string({ unit: "binary", maxLength: 12 }), nasty, fc.integer(), fc.double(),
  fc.boolean(), fc.constant(null), fc.constantFrom("1", "2", "3", "4", "5", "6", "7"), fc.integer({ min: 1, max: 6 }));
const { tree } = fc.letrec((tie) => ({
  tree: fc.oneof({ depthSize: "small", withCrossShrink: true }, leaf, fc.array(tie("tree"), { maxLength: 3 }), fc.dictionary(key, tie("tree"), { maxKeys: 4 })),
}));
const deep = fc.integer({ min: 50, max: 5000 }).map((n) => `[${"[".repeat(n)}${"]".repeat(n)}]`);
const body = fc.oneof(
  { weight: 5, arbitrary: fc.array(tree, { maxLength: 3 }).map((args) => JSON.stringify(args)) },
  { weight: 3, arbitrary: fc.dictionary(key, tree, { maxKeys: 5 }).map((input) => JSON.stringify([input])) },
  { weight: 1, arbitrary: tree.map((v) => JSON.stringify(v)) },
  { weight: 1, arbitrary: deep },
  { weight: 1, arbitrary: fc.constantFrom(300_000, 1_100_000, 2_000_000).map((n) => JSON.stringify([{ title: "big", description: "y".repeat(n) }])) },
  { weight: 1, arbitrary: fc.constantFrom('[{"__proto__":{"ok":true}}]', '[{"constructor":{"prototype":{"role":"supervisor"}}}]', "not json", "", "[", '["$@1"]', '["$F1"]', '{"0":1}', "\u0000", "[\"\\ud800\"]") },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 40 }).map((b) => Buffer.from(b).toString("latin1")) },
);

const tally = { ok: 0, refused: 0, codes: new Map<string, number>(), statuses: new Map<number, number>() };

describe.each(manifestActions().map((a) => [a.exportedName, a] as const))("%s", (_name, action: ManifestAction) => {
  test(`${RUNS_PER_ACTION} hostile argument lists: never a 5xx; refusals in the shape, nothing written`, { timeout: 120_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(body, fc.constantFrom("text/plain;charset=UTF-8", "application/json", "multipart/form-data; boundary=x"), async (raw, type) => {
        const before = await stateDigest(f);
        const answer = await callAction(f.server.url, action, [], { cookie, body: raw, headers: { "content-type": type } });
        tally.statuses.set(answer.status, (tally.statuses.get(answer.status) ?? 0) + 1);
        expect(answer.status, answer.text.slice(0, 300)).toBeLessThan(500);
        if (answer.result?.ok) {
          tally.ok++;
          return;
        }
        tally.refused++;
        if (!answer.result) {
          // Refused before Next.js decoded it (proxy.ts, lib/http/action-body.ts): the API's error shape.
          const { error } = JSON.parse(answer.text) as { error: { code: string; message: string } };
          expect(Object.keys(error).sort()).toEqual(["code", "message"]);
          expect({ status: answer.status, code: error.code }).toEqual(
            answer.status === 413 ? { status: 413, code: "payload_too_large" } : { status: 400, code: "invalid_request" },
          );
          tally.codes.set(`proxy:${error.code}`, (tally.codes.get(`proxy:${error.code}`) ?? 0) + 1);
        } else {
          const error = answer.result.error!;
          expect(Object.keys(error).every((k) => ["code", "message", "field", "task"].includes(k)), JSON.stringify(error)).toBe(true);
          expect([...ERROR_CODES, "unauthorized", "forbidden"]).toContain(error.code);
          expect(typeof error.message).toBe("string");
          tally.codes.set(error.code, (tally.codes.get(error.code) ?? 0) + 1);
        }
        expect(answer.text).not.toMatch(/\n\s+at |node_modules|\.(ts|js):\d+/);
        const after = await stateDigest(f);
        expect(after, "a refused action wrote something").toEqual(before);
      }),
      { numRuns: RUNS_PER_ACTION },
    );
  });
});

test("summary", () => {
  console.log(`[fuzz:actions] ${tally.ok} accepted, ${tally.refused} refused ${JSON.stringify(Object.fromEntries(tally.codes))}; statuses ${JSON.stringify(Object.fromEntries(tally.statuses))}`);
  expect(tally.refused).toBeGreaterThan(tally.ok);
});
