import { randomBytes } from "node:crypto";
import { defineOperation } from "@/lib/tasks";
import { SUPERVISORS, fail, ok, type Result } from "@/lib/tasks/model";
import { recordAudit } from "./audit";
import { hashPassword } from "./passwords";
import { createUserInput, insertUser, type UserAccount } from "./users";

// Inviting a person (the people page) or creating one (the CLI's `user create`): one operation
// for supervisors and the operator, its audit record in its transaction. No "server-only"
// here: the CLI runs it outside Next.js, as it does users.ts and tokens.ts.

/** Invite: email, name, role; the password is set here or, when left out, generated and shown once. */
export const invitePersonInput = createUserInput.extend({ password: createUserInput.shape.password.optional() });

/** 16 random bytes as base64url: 128 bits, typed once by the invitee and then changed by nobody but them. */
const generatedPassword = () => randomBytes(16).toString("base64url");

export const invitePerson = defineOperation({
  name: "invitePerson",
  who: SUPERVISORS,
  input: invitePersonInput,
  async run(tx, input, { actor }): Promise<Result<{ person: UserAccount; password: string | null }>> {
    const password = input.password ?? generatedPassword();
    const person = await insertUser(tx, { ...input, passwordHash: await hashPassword(password) });
    if (!person) return fail({ code: "invalid_request", message: `Someone already signs in as ${input.email}`, field: "email" });
    await recordAudit(tx, actor, {
      action: "person_invited",
      subject: { kind: "person", id: person.actor.id, name: person.actor.name },
      detail: { email: person.email, role: person.role },
    });
    return ok({ person, password: input.password ? null : password });
  },
});

