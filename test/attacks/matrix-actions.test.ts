import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createAgentToken } from "@/lib/auth/tokens";
import { createUser } from "@/lib/auth/users";
import { addDependencies, createActor, perform } from "@/lib/tasks";
import { makeQueue } from "@/test/queues";
import { makeCallers, freshQueue, Scenes, type Caller } from "./callers";
import { sourceActions } from "./discover";
import { attackFixture, callAction, manifestActions, stateDigest, type AttackFixture } from "./helpers";
import { approval, aParkedBudget, aQuestion, aSchedule, aSubmission, aToken, aWebhook } from "./v12-scenes";

// The authorisation matrix of the server actions: every action in the build's manifest,
// cross-checked against every export of every "use server" file, × nine callers. The
// expectation of each cell comes from the role the action's own guard names in the source
// (`guardedAction("supervisor", …)`): people at that role or above may; everyone else is
// refused with nothing written. Allowed cells must work (ok: true) on a scene made for them.

type Scene = (s: Scenes, caller: Caller, queue: string) => Promise<unknown>;
const ref = (t: { id: string; version: number }) => ({ taskId: t.id, version: t.version });
/** A staff account of its own for a people-management cell. */
const person = (q: string) => createUser(fixture.database.db, { email: `${q}@example.com`, name: `Person ${q}`, role: "staff", password: `pw-${q}-long` });

/** How to give each action a call that should succeed. An action without a row fails the matrix. */
const SCENES: Record<string, Scene> = {
  createTaskAction: async (_s, _c, queue) => ({ title: "matrix", queue }),
  claimAction: async (s, _c, q) => ref(await s.queued(q)),
  startAction: async (s, c, q) => ref(await s.claimed(q, c.actor)),
  renewAction: async (s, c, q) => ref(await s.started(q, c.actor)),
  recordSideEffectAction: async (s, c, q) => ({ ...ref(await s.started(q, c.actor)), description: "sent a mail" }),
  releaseAction: async (s, c, q) => ref(await s.claimed(q, c.actor)),
  resolveEffectAction: async (s, c, q) => {
    const { task, effectId } = await s.effect(q, c.actor);
    return { taskId: task.id, effectId, version: task.version, state: "applied", externalRef: "matrix" };
  },
  completeAction: async (s, c, q) => ref(await s.started(q, c.actor)),
  // The holder acknowledges a comment of the task (its own here: an ack with nothing unread answers the task).
  ackAction: async (s, c, q) => {
    const task = await s.started(q, c.actor);
    const [comment] = await fixture.database.client<{ id: string }[]>`
      INSERT INTO task_events (task_id, queue, type, actor_id, payload, created_at)
      VALUES (${task.id}::bigint, ${q}, 'commented', ${c.actor.id}::uuid, '{"body":"matrix"}'::jsonb, now()) RETURNING id::text`;
    return { ...ref(task), eventId: comment!.id };
  },
  reviewAction: async (_s, _c, q) => {
    const task = await aSubmission(fixture.database.db, q);
    return { taskId: task.id, ...approval(task) };
  },
  reviewsWaitingAction: async (_s, _c, q) => (await aSubmission(fixture.database.db, q), {}),
  notificationsAction: async () => ({ events: [{ id: "1", taskId: "1" }] }),
  failAction: async (s, c, q) => ({ ...ref(await s.claimed(q, c.actor)), reason: "matrix" }),
  requeueAction: async (s, _c, q) => ref(await s.escalated(q)),
  requeueToAction: async (s, _c, q) => ({ ...ref(await s.escalated(q)), queue: await makeQueue(fixture.database.db, `${q}-to`) }),
  resolveAction: async (s, _c, q) => ref(await s.escalated(q)),
  cancelAction: async (s, _c, q) => ref(await s.queued(q)),
  forceReleaseAction: async (s, _c, q) => ref(await s.claimed(q, await createActor(fixture.database.db, "agent", "holder"))),
  releaseReservationsAction: async (s, _c, q) => {
    const { taskId, version } = await aQuestion(fixture.database.db, await s.queue(q), undefined, [{ resource: `${q}/**`, mode: "exclusive" }]);
    return { taskId, version };
  },
  resetBreakerAction: async (s, _c, q) => (await s.tripped(q), { queue: q }),
  sweepAction: async (_s, _c, q) => ({ queue: q }),
  setQueueSettingsAction: async (_s, _c, q) => ({ queue: q, leaseSeconds: 120 }),
  setQueuePausedAction: async (_s, _c, q) => ({ queue: q, paused: true }),
  createQueueAction: async (_s, _c, q) => ({ name: `${q}-made`, description: "matrix" }),
  archiveQueueAction: async (_s, _c, q) => ({ queue: q }),
  unarchiveQueueAction: async (s, _c, q) => (await s.archived(q), { queue: q }),
  addDependenciesAction: async (s, c, q) => {
    // Adding needs the right to edit the task (issue 25 item 7): the caller made it.
    const [task, dependency] = [await s.queued(q, c.actor), await s.queued(q)];
    return { ...ref(task), dependsOn: [dependency.id] };
  },
  removeDependencyAction: async (s, c, q) => {
    // Removing needs the right to edit the task, as adding does: the caller made it.
    const [task, dependency] = [await s.queued(q, c.actor), await s.queued(q)];
    const added = await perform(addDependencies, { ...ref(task), dependsOn: [dependency.id] }, { db: fixture.database.db, actor: c.actor });
    if (!added.ok) throw new Error(added.error.message);
    return { ...ref(added.value), dependency: dependency.id };
  },
  reservationWaitsAction: async () => ({}),
  editTaskAction: async (s, c, q) => ({ ...ref(await s.queued(q, c.actor)), title: "matrix, edited" }),
  addCommentAction: async (s, _c, q) => ({ taskId: (await s.queued(q)).id, body: "matrix" }),
  createTokenAction: async (_s, _c, q) => ({ name: `tok-${q}` }),
  raiseBudgetAction: async (_s, _c, q) => ({ ...ref(await aParkedBudget(fixture.database.db, q)), add: 5 }),
  setMonthlyBudgetAction: async (_s, _c, q) => ({ name: await aToken(fixture.database.db, q), monthlyBudget: { limit: 100, unit: "tokens" } }),
  revokeTokenAction: async (_s, _c, q) => (await createAgentToken(fixture.database.db, { name: `rev-${q}` }), { name: `rev-${q}` }),
  auditAction: async () => ({ subject: "person" }),
  bulkSuperviseAction: async (s, _c, q) => ({ action: "requeue", tasks: [ref(await s.escalated(q))] }),
  bulkReviewAction: async (_s, _c, q) => {
    const task = await aSubmission(fixture.database.db, q);
    return { decision: "approve", tasks: [{ taskId: task.id, version: task.version, digest: task.submission!.digest }] };
  },
  listQueuesAction: async () => ({}),
  queueRulesAction: async () => ({}),
  heldLeasesAction: async (s, c, q) => (await s.started(q, c.actor), { renew: true }),
  notificationKindsAction: async () => ({}),
  setNotificationKindsAction: async () => ({ off: ["takeover"] }),
  pausedQueuesAction: async () => ({}),
  agentTokensAction: async () => ({}),
  fleetAction: async (s, c, q) => (await s.started(q, c.actor), {}),
  peopleAction: async () => ({}),
  invitePersonAction: async (_s, _c, q) => ({ email: `invited-${q}@example.com`, name: "Invited", role: "staff" }),
  setPersonRoleAction: async (_s, _c, q) => ({ actorId: (await person(q)).actor.id, role: "supervisor" }),
  setPersonDisabledAction: async (_s, _c, q) => ({ actorId: (await person(q)).actor.id, disabled: true }),
  unlockSignInAction: async (_s, _c, q) => ({ actorId: (await person(q)).actor.id }),
  issuePasswordResetAction: async (_s, _c, q) => ({ actorId: (await person(q)).actor.id }),
  // The caller's own password, changed (to itself is refused): nothing later in this file signs in again.
  changeOwnPasswordAction: async (_s, c) => ({ current: c.password ?? "not-a-person", password: `${c.password ?? "not-a-person"}-changed` }),
  inboxAction: async () => ({ queue: null }),
  lapsedAction: async () => ({}),
  inReviewAction: async (_s, _c, q) => (await aSubmission(fixture.database.db, q), { queue: null }),
  lapsedCountAction: async () => ({}),
  queueSettingsListAction: async () => ({}),
  createWebhookAction: async (_s, _c, q) => ({ url: `https://198.51.100.7/${q}`, events: ["breaker_tripped"], queues: [q] }),
  deleteWebhookAction: async (_s, _c, q) => ({ id: await aWebhook(fixture.database.db, q) }),
  webhooksAction: async () => ({}),
  deliveriesAction: async (_s, _c, q) => ({ id: await aWebhook(fixture.database.db, q) }),
  createScheduleAction: async (_s, _c, q) => ({ name: `made ${q}`, cron: "0 9 * * 1", queue: q, task: { title: "matrix" } }),
  updateScheduleAction: async (_s, _c, q) => ({ id: await aSchedule(fixture.database.db, q), paused: true }),
  deleteScheduleAction: async (_s, _c, q) => ({ id: await aSchedule(fixture.database.db, q) }),
  adoptScheduleAction: async (_s, _c, q) => ({ id: await aSchedule(fixture.database.db, q) }),
  adoptWebhookAction: async (_s, _c, q) => ({ id: await aWebhook(fixture.database.db, q) }),
  schedulesAction: async () => ({}),
  openQuestionsAction: async (_s, _c, q) => (await aQuestion(fixture.database.db, q), {}),
  taskQuestionsAction: async (_s, _c, q) => ({ taskId: (await aQuestion(fixture.database.db, q)).taskId }),
  answerQuestionAction: async (_s, _c, q) => {
    const { taskId, questionId } = await aQuestion(fixture.database.db, q);
    return { taskId, questionId, text: "yes", choice: "yes" };
  },
  applyRecommendedLeaseAction: async (s, _c, q) => (await s.heartbeats(q), { queue: q, window: "1h" }),
};

/**
 * The declared policy the guards are held to, per "use server" file: a guard lowered in
 * the source (or a new file of actions) fails here rather than quietly moving the matrix.
 */
const FILE_ROLE: Record<string, "staff" | "supervisor"> = {
  "app/actions/tasks.ts": "staff",
  "app/account/actions.ts": "staff",
  "app/actions/board.ts": "staff",
  "app/actions/leases.ts": "staff",
  "app/actions/attention.ts": "staff",
  "app/actions/supervise.ts": "supervisor",
  "app/agents/actions.ts": "supervisor",
  "app/inbox/actions.ts": "supervisor",
  "app/people/actions.ts": "supervisor",
  "app/queues/actions.ts": "supervisor",
  "app/insights/actions.ts": "supervisor",
  "app/webhooks/actions.ts": "supervisor",
  "app/schedules/actions.ts": "supervisor",
  "app/questions/actions.ts": "staff",
};

/** The policy: a person whose current role is at least the guard's role. */
function allowed(role: "staff" | "supervisor", caller: Caller): boolean {
  if (!caller.role) return false;
  return role === "staff" || caller.role === "supervisor";
}

let fixture: AttackFixture;
let callers: Caller[];
let scenes: Scenes;
const actions = manifestActions();
const source = sourceActions();
const tally = { allowed: 0, denied: 0 };

beforeAll(async () => {
  fixture = await attackFixture({ AUTH_FAILURE_BURST: "100000" });
  callers = await makeCallers(fixture);
  scenes = new Scenes(fixture, callers.find((c) => c.name === "supervisor")!.actor);
});
afterAll(async () => {
  console.log(`[matrix:actions] ${actions.length} actions × ${callers?.length} callers: ${tally.allowed} allowed cells worked, ${tally.denied} denied with nothing written`);
  fixture?.expectCleanLogs();
  await fixture?.close();
});

test("every action in the build is an export of a \"use server\" file, and every export has a guard role and a scene", () => {
  const inSource = new Set(source.map((a) => `${a.file}#${a.name}`));
  for (const action of actions) expect(inSource, `manifest action ${action.exportedName}`).toContain(`${action.filename}#${action.exportedName}`);
  for (const action of source) {
    expect(action.role, `${action.file}: ${action.name} has no guardedAction/operationAction role`).not.toBeNull();
    expect(action.role, `${action.file}: ${action.name}'s guard role against the declared one for its file`).toBe(FILE_ROLE[action.file]);
    expect(SCENES, `${action.name} has no row in the matrix`).toHaveProperty(action.name);
  }
  const built = new Set(actions.map((a) => a.exportedName));
  const unbuilt = source.filter((a) => !built.has(a.name)).map((a) => a.name);
  console.log(`[matrix:actions] ${source.length} exports in "use server" files, ${actions.length} in the build${unbuilt.length ? `; not reachable (no client imports them): ${unbuilt}` : ""}`);
  expect(actions.length).toBeGreaterThanOrEqual(20);
});

describe.each(actions.map((a) => [a.exportedName, a] as const))("%s", (name, action) => {
  const role = () => source.find((a) => a.name === name && a.file === action.filename)!.role!;

  test("denied callers are refused and nothing is written; allowed callers succeed", { timeout: 120_000 }, async () => {
    const cells = await Promise.all(
      callers.map(async (caller) => ({ caller, args: await SCENES[name]!(scenes, caller, await scenes.queue(freshQueue())), allow: allowed(role(), caller) })),
    );
    // All refusals of this action at once, between two digests of every table.
    const before = await stateDigest(fixture);
    const denied = cells.filter((c) => !c.allow);
    const answers = await Promise.all(
      denied.map(({ caller, args }) =>
        callAction(fixture.server.url, action, [args], {
          cookie: caller.cookie,
          headers: caller.token ? { authorization: `Bearer ${caller.token}` } : {},
        }),
      ),
    );
    for (const [i, answer] of answers.entries()) {
      const caller = denied[i]!.caller;
      const expected = caller.role ? "forbidden" : "unauthorized";
      expect(answer.result, `${caller.name}: ${answer.status} ${answer.text.slice(0, 300)}`).toMatchObject({ ok: false, error: { code: expected } });
    }
    expect(await stateDigest(fixture), "a refused call changed the database").toEqual(before);
    tally.denied += denied.length;

    for (const { caller, args } of cells.filter((c) => c.allow)) {
      const answer = await callAction(fixture.server.url, action, [args], { cookie: caller.cookie });
      expect(answer.result, `${caller.name}: ${answer.status} ${answer.text.slice(0, 300)}`).toMatchObject({ ok: true });
      // As a browser does, the caller keeps a session cookie the answer set: a password change
      // ends every other session of the person and re-issues this one (lib/auth/session-cookie.ts).
      const renewed = answer.cookies.find((c) => c.startsWith("next-auth.session-token="));
      if (renewed) caller.cookie = renewed;
      tally.allowed++;
    }
  });
});
