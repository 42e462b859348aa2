import { createRequire } from "node:module";
import fc from "fast-check";
import { expect, test } from "vitest";
import { actionBodyProblem } from "@/lib/http/action-body";

// The proxy's pre-check of server action bodies must never refuse what a browser sends:
// React's own encoder (the one the board's client code calls through) for any JSON-like
// argument — strings starting with "$", -0, undefined fields, deep-ish objects — passes;
// references a made-up body could use to crash the decoder do not.

const { encodeReply } = createRequire(import.meta.url)("next/dist/compiled/react-server-dom-webpack/client.node.js") as {
  encodeReply(value: unknown): Promise<string | FormData>;
};

const text = fc.oneof(fc.string(), fc.string({ unit: "binary" }), fc.constantFrom("$", "$$", "$1", "$@0", "$undefined", "$Q1", "$D", "\u0000"));
const value = fc.letrec((tie) => ({
  v: fc.oneof({ depthSize: "small" }, text, fc.integer(), fc.double({ noNaN: true }), fc.constantFrom(-0, null, true, undefined),
    fc.array(tie("v"), { maxLength: 4 }), fc.dictionary(fc.string({ maxLength: 6 }), tie("v"), { maxKeys: 4, noNullPrototype: true })),
})).v;

test("whatever the browser's encoder makes of JSON-like arguments passes", async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(value, { maxLength: 2 }), async (args) => {
      const body = await encodeReply(args);
      expect(typeof body).toBe("string");
      expect(actionBodyProblem("text/plain;charset=UTF-8", body as string), body as string).toBeNull();
    }),
    { numRuns: 500 },
  );
});

test("references, non-arrays, form data and deep nesting are refused", () => {
  for (const body of ['["$@1"]', '[{"a":"$Q1"}]', '["$F0"]', '[{"x":["$K2"]}]', '["$1"]', '["$h0"]', '{"0":1}', "nope", "", `[${"[".repeat(100)}${"]".repeat(100)}]`]) {
    expect(actionBodyProblem("text/plain;charset=UTF-8", body), body).not.toBeNull();
  }
  expect(actionBodyProblem("multipart/form-data; boundary=x", "[]")).not.toBeNull();
  expect(actionBodyProblem("text/plain", JSON.stringify(["y".repeat(300_000)]))).toMatchObject({ code: "payload_too_large" });
});
