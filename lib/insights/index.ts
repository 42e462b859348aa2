import "server-only";
export * from "./insights";
