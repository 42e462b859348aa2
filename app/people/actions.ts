"use server";

import { z } from "zod";
import { guardedAction, operationAction } from "@/lib/auth/action";
import { invitePerson, listPeople, setPersonDisabled, setPersonRole, unlockSignIn } from "@/lib/auth/people";
import { issuePasswordReset } from "@/lib/auth/password-reset";
import { ok } from "@/lib/tasks/model";

// People management (docs/fleet.md): each change is an engine operation, for supervisors
// (`who`, decided by the engine from the caller's current role), with its audit record; the
// last-supervisor rule lives in lib/auth/people.ts.
export const peopleAction = guardedAction("supervisor", z.strictObject({}), async (_input, { db }) => ok(await listPeople(db)));
export const invitePersonAction = operationAction("supervisor", invitePerson);
export const setPersonRoleAction = operationAction("supervisor", setPersonRole);
export const setPersonDisabledAction = operationAction("supervisor", setPersonDisabled);
export const unlockSignInAction = operationAction("supervisor", unlockSignIn);
export const issuePasswordResetAction = operationAction("supervisor", issuePasswordReset);
