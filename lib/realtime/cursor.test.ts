import { expect, test } from "vitest";
import { compareCursors, formatCursor, parseCursor } from "./cursor";

test("a cursor survives formatting and parsing, at both ends of the range", () => {
  for (const cursor of [
    { txId: 0n, eventId: 0n },
    { txId: 9081n, eventId: 1234n },
    { txId: (1n << 63n) - 1n, eventId: (1n << 63n) - 1n },
  ]) {
    expect(parseCursor(formatCursor(cursor))).toEqual(cursor);
  }
  expect(formatCursor({ txId: 9081n, eventId: 1234n })).toBe("9081:1234");
});

test("anything but two unsigned 63-bit integers joined by a colon is malformed", () => {
  for (const text of ["", "1", "1:", ":1", "a:b", "1:2:3", "-1:2", "1:-2", "1.5:2", "0x1:2", "1 :2", "9223372036854775808:1", "1:9223372036854775808", "12345678901234567890:1"]) {
    expect(parseCursor(text), text).toBeNull();
  }
});

test("cursors order by transaction id first, then event id", () => {
  const c = (txId: bigint, eventId: bigint) => ({ txId, eventId });
  expect(compareCursors(c(1n, 9n), c(2n, 1n))).toBe(-1);
  expect(compareCursors(c(2n, 1n), c(1n, 9n))).toBe(1);
  expect(compareCursors(c(2n, 1n), c(2n, 2n))).toBe(-1);
  expect(compareCursors(c(2n, 2n), c(2n, 2n))).toBe(0);
});
