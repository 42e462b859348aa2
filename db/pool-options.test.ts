import { describe, expect, it } from "vitest";
import { SERVER_POOL_SIZE, serverPoolOptions } from "./client";

describe("serverPoolOptions", () => {
  it("is the server's default pool without DB_POOL_SIZE, or with it empty", () => {
    expect(serverPoolOptions({})).toEqual({ max: SERVER_POOL_SIZE });
    expect(serverPoolOptions({ DB_POOL_SIZE: " " })).toEqual({ max: SERVER_POOL_SIZE });
  });

  it("takes a whole number from 1 to 1000", () => {
    expect(serverPoolOptions({ DB_POOL_SIZE: "1" })).toEqual({ max: 1 });
    expect(serverPoolOptions({ DB_POOL_SIZE: "24" })).toEqual({ max: 24 });
    expect(serverPoolOptions({ DB_POOL_SIZE: "1000" })).toEqual({ max: 1000 });
  });

  it("refuses anything else, naming the variable and the value", () => {
    for (const raw of ["0", "-3", "2.5", "ten", "1001", "6 connections"]) {
      expect(() => serverPoolOptions({ DB_POOL_SIZE: raw })).toThrow(`DB_POOL_SIZE must be a whole number from 1 to 1000, got "${raw}"`);
    }
  });
});
