import { makeFence, readFenceKey } from "@/lib/tasks/fences/fence";
import { sql } from "drizzle-orm";
import { createActor, perform, claim, createTask, failTask, ManualClock, recordEffect, renew, setQueueSettings, start, type Recorded } from "@/lib/tasks";
import { findActor } from "@/lib/tasks/core/actors";
import { revokeAgentToken } from "@/lib/auth/tokens";
import type { ActorRef, Result, Task } from "@/lib/tasks/core/types";
import { makeQueue } from "../queues";
import { mustSignIn, type AttackFixture } from "./helpers";

// The callers of the authorisation matrix and the scenes its cells run against. Every
// caller has an actor (anonymous and revoked callers a stand-in), so a scene can be built
// "as if the caller held the task" whether or not the call is then allowed.

export type CallerName =
  | "anonymous" | "staff" | "supervisor" | "demoted" | "disabled"
  | "agentToken" | "observerToken" | "supervisorToken" | "revokedToken";

export interface Caller {
  name: CallerName;
  /** A session cookie (people). */
  cookie: string | null;
  /** A bearer token (agents). */
  token: string | null;
  /** Whose name a scene holds tasks in. */
  actor: ActorRef;
  /** The person's role now, per the database (for the policy). */
  role: "staff" | "supervisor" | null;
  tokenRole: "agent" | "observer" | "supervisor" | null;
  /** A person's password (their own account's actions need it). */
  password?: string;
}

/**
 * The nine callers. `demoted` signed in as a supervisor and was then lowered to staff;
 * `disabled` signed in and was then disabled — both keep a valid-looking session cookie.
 */
export async function makeCallers(f: AttackFixture): Promise<Caller[]> {
  const db = f.database.db;
  const actor = async (id: string) => (await findActor(db, id))!;
  const people = {
    staff: await f.person("staff@example.com", "staff"),
    supervisor: await f.person("supervisor@example.com", "supervisor"),
    demoted: await f.person("demoted@example.com", "supervisor"),
    disabled: await f.person("disabled@example.com", "staff"),
  };
  const cookies = Object.fromEntries(
    await Promise.all(Object.entries(people).map(async ([k, p]) => [k, await mustSignIn(f, p.email, p.password)] as const)),
  ) as Record<keyof typeof people, string>;
  await f.database.client`UPDATE users SET role = 'staff' WHERE email = ${people.demoted.email}`;
  await f.database.client`UPDATE users SET disabled = true WHERE email = ${people.disabled.email}`;

  const tokens = {
    agent: await f.token("m-agent", "agent"),
    observer: await f.token("m-observer", "observer"),
    supervisor: await f.token("m-supervisor", "supervisor"),
    revoked: await f.token("m-revoked", "agent"),
  };
  await revokeAgentToken(db, "m-revoked");
  const tokenActor = async (name: string) => {
    const [row] = await f.database.client<{ id: string }[]>`SELECT actor_id::text AS id FROM agent_tokens WHERE name = ${name}`;
    return actor(row!.id);
  };
  const standIn = await createActor(db, "agent", "stand-in");
  const person = (name: CallerName, key: keyof typeof people, role: "staff" | "supervisor") =>
    actor(people[key].actorId).then((a): Caller => ({ name, cookie: cookies[key], token: null, actor: a, role, tokenRole: null, password: people[key].password }));
  const agent = (name: CallerName, key: keyof typeof tokens, tokenRole: Caller["tokenRole"], a: ActorRef): Caller =>
    ({ name, cookie: null, token: tokens[key], actor: a, role: null, tokenRole });
  return [
    { name: "anonymous", cookie: null, token: null, actor: standIn, role: null, tokenRole: null },
    await person("staff", "staff", "staff"),
    await person("supervisor", "supervisor", "supervisor"),
    await person("demoted", "demoted", "staff"),
    { ...(await person("disabled", "disabled", "staff")), role: null },
    agent("agentToken", "agent", "agent", await tokenActor("m-agent")),
    agent("observerToken", "observer", "observer", await tokenActor("m-observer")),
    agent("supervisorToken", "supervisor", "supervisor", await tokenActor("m-supervisor")),
    agent("revokedToken", "revoked", null, await tokenActor("m-revoked")),
  ];
}

// ---------------------------------------------------------------------------------------
// Scenes: engine calls straight on the database, each in a queue of its own.

function must<T>(result: Result<T>): T {
  if (!result.ok) throw new Error(`scene: ${result.error.code}: ${result.error.message}`);
  return result.value;
}

let counter = 0;
/** A queue name of its own for a cell; the scenes make it (test/queues.ts) before they use it. */
export const freshQueue = () => `m-${process.pid}-${++counter}`;

export class Scenes {
  constructor(private readonly f: AttackFixture, private readonly admin: ActorRef) {}

  private run<T>(op: Parameters<typeof perform>[0], input: unknown, actor: ActorRef) {
    return perform(op, input, { db: this.f.database.db, actor }) as Promise<Result<T>>;
  }

  /** Makes the queue (idempotent): a cell's request may name it before any task is in it. */
  async queue(queue: string): Promise<string> {
    return makeQueue(this.f.database.db, queue);
  }

  /** A new task; `creator` makes it the caller's own (edits). */
  async queued(queue: string, creator: ActorRef = this.admin): Promise<Task> {
    await this.queue(queue);
    return must(await this.run<Task>(createTask, { title: `scene ${queue}`, queue }, creator));
  }

  /** Queued, made by `creator`, waiting for `dependency`. */
  async dependent(queue: string, dependency: string, creator: ActorRef = this.admin): Promise<Task> {
    await this.queue(queue);
    return must(await this.run<Task>(createTask, { title: `scene ${queue}`, queue, dependsOn: [dependency] }, creator));
  }

  async claimed(queue: string, holder: ActorRef): Promise<Task> {
    const task = await this.queued(queue);
    return must(await this.run<Task>(claim, { taskId: task.id, version: task.version }, holder));
  }

  async started(queue: string, holder: ActorRef): Promise<Task> {
    const task = await this.claimed(queue, holder);
    return must(await this.run<Task>(start, { taskId: task.id, version: task.version }, holder));
  }

  /** The fence of a task's current attempt (held by the scene's admin): what a downstream system verifies. */
  async fence(queue: string): Promise<string> {
    const task = await this.claimed(queue, this.admin);
    return makeFence(await readFenceKey(this.f.database.db), task.id, task.attempt);
  }

  /** A started task of `holder` with one intended effect. */
  async effect(queue: string, holder: ActorRef): Promise<{ task: Task; effectId: string }> {
    const task = await this.started(queue, holder);
    const recorded = must(await this.run<Recorded>(recordEffect, { taskId: task.id, version: task.version, name: "charge" }, holder));
    return { task: recorded.task, effectId: recorded.effect.id };
  }

  /** Failed once in a queue that escalates on the first failure. */
  async escalated(queue: string): Promise<Task> {
    await this.queue(queue);
    must(await this.run(setQueueSettings, { queue, maxFailures: 1 }, this.admin));
    const task = await this.claimed(queue, this.admin);
    return must(await this.run<Task>(failTask, { taskId: task.id, version: task.version, reason: "scene" }, this.admin));
  }

  /** A queue with enough heartbeats in the last hour for a lease recommendation: 24 beats 10 s apart. */
  async heartbeats(queue: string): Promise<void> {
    const clock = new ManualClock(new Date(Date.now() - 10 * 60_000));
    const as = <T>(op: Parameters<typeof perform>[0], input: unknown) =>
      perform(op, input, { db: this.f.database.db, actor: this.admin, clock }).then((r) => must(r as Result<T>));
    await this.queue(queue);
    let task = await as<Task>(createTask, { title: `scene ${queue}`, queue });
    task = await as<Task>(claim, { taskId: task.id, version: task.version });
    for (let i = 0; i < 24; i++) {
      clock.advance(10);
      task = await as<Task>(renew, { taskId: task.id, version: task.version });
    }
  }

  /** An archived queue (straight on the database: the scene, not the call under test). */
  async archived(queue: string): Promise<void> {
    await this.queue(queue);
    await this.f.database.db.execute(sql`UPDATE queues SET archived_at = now() WHERE name = ${queue}`);
  }

  /** A queue whose breaker is open. */
  async tripped(queue: string): Promise<void> {
    await this.queued(queue);
    await this.f.database.db.execute(sql`UPDATE queues SET breaker_tripped_at = now(), breaker_reason = 'scene' WHERE name = ${queue}`);
  }
}
