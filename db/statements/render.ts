import { connectDatabase, type Db } from "@/db/client";

// The hot statements as PostgreSQL receives them: the driver's debug hook sees each statement
// one transaction sends, in order, with its parameters bound ($n), after every fragment the
// engine composes it from has been put together. What a reviewer reads in db/statements/*.sql.

export interface Sent {
  text: string;
  params: unknown[];
}

/** Runs `call` on a one-connection pool of its own and returns what it sent (BEGIN and COMMIT too). */
export async function statementsSent(url: string, call: (db: Db) => Promise<unknown>): Promise<Sent[]> {
  const sent: Sent[] = [];
  let recording = false;
  const recorder = connectDatabase(url, {
    max: 1,
    debug: (_connection, text, params) => void (recording && sent.push({ text, params: params as unknown[] })),
  });
  try {
    await recorder.client`SELECT 1`; // the connection's start-up (postgres.js reads the array types) is no call's
    recording = true;
    await call(recorder.db);
  } finally {
    await recorder.client.end();
  }
  return sent;
}

/**
 * One statement laid out to read: its lines unindented by their common margin (the template
 * literals it was written in), trailing spaces and empty lines gone, ended by `;`. Nothing
 * inside a line changes, so the text stays the one the engine sends.
 */
export function layOut(text: string): string {
  const lines = text.split("\n").map((line) => line.trimEnd()).filter((line) => line.trim() !== "");
  const margin = Math.min(...lines.slice(1).map((line) => line.length - line.trimStart().length));
  const body = lines.map((line, i) => (i === 0 ? line.trim() : line.slice(Number.isFinite(margin) ? margin : 0)));
  return body.join("\n") + ";";
}

export const RERENDER = "UPDATE_STATEMENTS=1 npx vitest run db/statements/statements.test.ts";

/** A .sql file: what it is, how it is made, then each statement laid out. */
export function sqlFile(title: string, about: string, statements: readonly Sent[]): string {
  const header = [
    `-- ${title}`,
    ...about.split("\n").map((line) => `-- ${line}`),
    "--",
    "-- Rendered from what the engine sends (db/statements/statements.test.ts), parameters as $n.",
    "-- Do not edit: change the engine, then re-render every file with",
    `--   ${RERENDER}`,
  ];
  return [header.join("\n"), ...statements.map((s) => layOut(s.text))].join("\n\n") + "\n";
}
