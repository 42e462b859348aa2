import { afterAll, beforeAll, expect, test } from "vitest";
import { createUser } from "@/lib/auth/users";
import { createTask, editTask, type ActorRef } from "@/lib/tasks";
import { engineFixture, type EngineFixture } from "@/test/engine";

// Titles and names are one line people read in lists, timelines and terminals: control
// characters (escape sequences, bells, new lines) and bidirectional overrides (which make
// "invoice-exe.pdf" read as "invoice-fdp.exe") are refused there, naming the field. A
// description may hold new lines and tabs, never the rest.

let f: EngineFixture;
let amal: ActorRef;
beforeAll(async () => {
  f = await engineFixture();
  amal = await f.actor("Amal");
  await f.queue("text");
});
afterAll(async () => {
  await f?.close();
});

const HOSTILE = ["pay \u202Efdp.exe", "\u2066isolate\u2069", "\x1b[31mred\x1b[0m", "ring\u0007", "two\nlines", "tab\there", "\u200Fmark", "c1\u009B2J", "\u061Calm"];

test("a title with a control or bidi character is refused on create and on edit, naming the field", async () => {
  for (const title of HOSTILE) {
    const created = await f.run(createTask, { title, queue: "text" }, amal);
    expect(created, JSON.stringify(title)).toMatchObject({ ok: false, error: { code: "invalid_request", field: "title" } });
  }
  const task = await f.must(createTask, { title: "plain — ünïcode ✓ 日本語", queue: "text", description: "line one\nline two\tindented" }, amal);
  for (const title of HOSTILE) {
    const edited = await f.run(editTask, { taskId: task.id, version: task.version, title }, amal);
    expect(edited, JSON.stringify(title)).toMatchObject({ ok: false, error: { code: "invalid_request", field: "title" } });
  }
  const description = await f.run(createTask, { title: "ok", queue: "text", description: "looks \u202Efine" }, amal);
  expect(description).toMatchObject({ ok: false, error: { code: "invalid_request", field: "description" } });
});

test("a person's name with a control or bidi character is refused", async () => {
  for (const name of HOSTILE) {
    await expect(createUser(f.db, { email: `n${HOSTILE.indexOf(name)}@example.com`, name, role: "staff", password: "a-long-password" }), JSON.stringify(name)).rejects.toThrow();
  }
  await expect(createUser(f.db, { email: "zoe@example.com", name: "Zoë O'Brien-Łukasz", role: "staff", password: "a-long-password" })).resolves.toBeTruthy();
});
