import { createHash } from "node:crypto";
import { createReadStream, type promises } from "node:fs";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createGunzip, createGzip } from "node:zlib";
import readline from "node:readline";

// The archive's file: gzip'd JSON Lines, one event per line with every column of task_events
// under its column name; ids (and tx_id) as strings, created_at in UTC to the microsecond, so
// a line is the row as it was and `zcat F | jq` reads it without a bigint losing digits. The
// lines are made by PostgreSQL (lib/events/archive.ts), so no number passes through a double.

interface ArchivedEventLine {
  id: string;
  created_at: string;
}

export interface WrittenFile {
  events: number;
  sha256: string;
}

/**
 * Writes JSON lines to a file the caller opened with "wx" (so it refused one that existed),
 * closing it, and returns the count and the SHA-256 of the bytes written.
 */
export async function writeArchiveFile(file: promises.FileHandle, lines: AsyncIterable<string>): Promise<WrittenFile> {
  let events = 0;
  const hash = createHash("sha256");
  async function* text() {
    for await (const line of lines) {
      events += 1;
      yield `${line}\n`;
    }
  }
  const hashing = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      done(null, chunk);
    },
  });
  // The stream closes the handle when done (an fs stream that does not close never finishes).
  await pipeline(Readable.from(text()), createGzip(), hashing, file.createWriteStream({ flush: true }));
  return { events, sha256: hash.digest("hex") };
}

/** Reads the file back: its SHA-256, and how many lines parse as events. */
export async function verifyArchiveFile(path: string): Promise<WrittenFile> {
  const hash = createHash("sha256");
  await pipeline(createReadStream(path), new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      done();
    },
  }));
  let events = 0;
  const lines = readline.createInterface({ input: createReadStream(path).pipe(createGunzip()), crlfDelay: Infinity });
  for await (const line of lines) {
    const row = JSON.parse(line) as Partial<ArchivedEventLine>;
    if (typeof row.id !== "string" || typeof row.created_at !== "string") throw new Error(`line ${events + 1} of ${path} is not an event`);
    events += 1;
  }
  return { events, sha256: hash.digest("hex") };
}
