"use server";

import { z } from "zod";
import { guardedAction } from "@/lib/auth/action";
import {
  invitePerson, invitePersonInput, listPeople, setDisabledInput, setPersonDisabled, setPersonRole, setRoleInput, unlockInput, unlockSignIn,
} from "@/lib/auth/people";
import { ok } from "@/lib/tasks/types";

// Supervisors only: people management (docs/fleet.md). Each action re-reads the caller's
// role from the database; the last-supervisor rule lives in lib/auth/people.ts.
export const peopleAction = guardedAction("supervisor", z.strictObject({}), async (_input, { db }) => ok(await listPeople(db)));
export const invitePersonAction = guardedAction("supervisor", invitePersonInput, (input, { db }) => invitePerson(db, input));
export const setPersonRoleAction = guardedAction("supervisor", setRoleInput, (input, { db }) => setPersonRole(db, input));
export const setPersonDisabledAction = guardedAction("supervisor", setDisabledInput, (input, { db }) => setPersonDisabled(db, input));
export const unlockSignInAction = guardedAction("supervisor", unlockInput, (input, { db }) => unlockSignIn(db, input));
