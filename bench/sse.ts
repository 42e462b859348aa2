import { spawn } from "node:child_process";
import http from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { connectDatabase } from "@/db/client";
import { perform } from "@/lib/tasks/core/engine";
import { createTask } from "@/lib/tasks/authoring/create";
import { createActor } from "@/lib/tasks/core/actors";
import type { BenchServerProcess } from "./lib/server";
import { percentile } from "./lib/stats";

/** Subscribers whose every message is parsed and timed; the rest only drain their bytes, in a child process. */
const PROBES = 50;
const FLEET = path.join(path.dirname(fileURLToPath(import.meta.url)), "sse-fleet.mjs");

/** The silent subscribers (bench/sse-fleet.mjs); resolves once all of them are connected. */
async function startFleet(url: string, token: string, count: number): Promise<() => void> {
  if (count <= 0) return () => {};
  const child = spawn(process.execPath, [FLEET, url, token, String(count)], { stdio: ["pipe", "pipe", "inherit"] });
  await new Promise<void>((resolve, reject) => {
    child.stdout.on("data", (d: Buffer) => d.toString().includes("ready") && resolve());
    child.on("exit", (code) => reject(new Error(`sse-fleet exited ${code}`)));
  });
  return () => child.stdin.end();
}

export interface SseResult {
  p50: number;
  p99: number;
  samples: number;
  rssBytes: number;
  /** From the first commit of the burst to the last delivery seen, ms. */
  burstMs: number;
  /** Server CPU during the burst, ms. */
  serverCpuMs: number;
}

interface Subscriber {
  request: http.ClientRequest;
  ready: Promise<void>;
}

/**
 * Opens `subscribers` SSE streams (GET /api/v1/events, one socket each; all but 50 in a
 * child process), then
 * commits `events` task creations (4 at a time) and measures commit → delivery: from the
 * moment each creation's transaction returned to the moment a probe subscriber read it.
 * Also reads the server's RSS while every subscriber is connected.
 */
export async function sseBurst(server: BenchServerProcess, dbUrl: string, token: string, subscribers: number, events: number): Promise<SseResult> {
  const queue = "sse";
  const committed = new Map<string, number>();
  const latencies: number[] = [];
  const subs: Subscriber[] = [];
  const stopFleet = await startFleet(`${server.url}/api/v1/events?queue=${queue}`, token, subscribers - PROBES);
  for (let i = 0; i < Math.min(subscribers, PROBES); i++) {
    let resolveReady!: () => void;
    const ready = new Promise<void>((r) => (resolveReady = r));
    const request = http.get(`${server.url}/api/v1/events?queue=${queue}`, { headers: { authorization: `Bearer ${token}` }, agent: false }, (res) => {
      if (res.statusCode !== 200) throw new Error(`events answered ${res.statusCode}`);
      res.setEncoding("utf8");
      let buffer = "";
      res.on("data", (chunk: string) => {
        resolveReady();
        const now = performance.now();
        buffer += chunk;
        const cut = buffer.lastIndexOf("\n\n");
        if (cut < 0) return;
        for (const m of buffer.slice(0, cut).matchAll(/"taskId":"(\d+)"/g)) {
          const at = committed.get(m[1]!);
          // A delivery can beat the creator's own return; it still counts (as ~0).
          latencies.push(at === undefined ? 0 : Math.max(0, now - at));
        }
        buffer = buffer.slice(cut + 2);
      });
    });
    request.on("error", () => {}); // destroyed at the end
    subs.push({ request, ready });
    if (i % 50 === 49) await Promise.all(subs.slice(-50).map((s) => s.ready));
  }
  await Promise.all(subs.map((s) => s.ready));
  const { db, client } = connectDatabase(dbUrl, { max: 4 });
  try {
    const actor = await createActor(db, "agent", `sse-${subscribers}-${Date.now()}`);
    await client`INSERT INTO queues (name) VALUES (${queue}) ON CONFLICT DO NOTHING`;
    let next = 0;
    const cpu0 = server.cpuSeconds();
    const t0 = performance.now();
    let lastDelivery = t0;
    const expected = Math.min(subscribers, PROBES) * events;
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (next < events) {
          next++;
          const r = await perform(createTask, { title: "sse burst", queue }, { db, actor });
          if (!r.ok) throw new Error(r.error.message);
          committed.set(r.value.id, performance.now());
        }
      }),
    );
    const deadline = performance.now() + 120_000;
    for (let seen = 0; latencies.length < expected && performance.now() < deadline; ) {
      await new Promise((r) => setTimeout(r, 5));
      if (latencies.length > seen) [seen, lastDelivery] = [latencies.length, performance.now()];
    }
    const serverCpuMs = (server.cpuSeconds() - cpu0) * 1000;
    if (latencies.length < expected) throw new Error(`SSE: ${latencies.length} of ${expected} deliveries seen`);
    const rssBytes = server.rssBytes();
    return { p50: percentile(latencies, 50), p99: percentile(latencies, 99), samples: latencies.length, rssBytes, burstMs: lastDelivery - t0, serverCpuMs };
  } finally {
    for (const s of subs) s.request.destroy();
    stopFleet();
    await client.end();
  }
}
