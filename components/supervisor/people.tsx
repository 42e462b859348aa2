"use client";

import { useQuery } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { invitePersonAction, peopleAction, setPersonDisabledAction, setPersonRoleAction, unlockSignInAction } from "@/app/people/actions";
import { ActionFailure, unwrap } from "@/components/task/mutations";
import { toWire, type Viewer, type Wire } from "@/components/task/wire";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { controlClass, SelectField, TextField } from "@/components/ui/field";
import { LocalTime } from "@/components/ui/local-time";
import { useToast } from "@/components/ui/toaster";
import type { PersonRow } from "@/lib/auth/people";
import { supervisorKeys } from "./keys";
import { ResetLinkButton } from "./reset-link";
import { useSupervisorCall } from "./use-supervisor";

export type PersonView = Wire<PersonRow>;
const ROLES = ["staff", "supervisor"] as const;

/** The server's own sentence for a refused change (it names the field and the rule). */
const sentence = (error: unknown) =>
  error instanceof ActionFailure && (error.error.code === "invalid_request" || error.error.code === "not_found")
    ? `${error.error.message.replace(/\.$/, "")}.`
    : "That didn't work. Check your connection and try again.";

function InvitePerson({ onInvited }: { onInvited: (invited: { email: string; password: string | null }) => void }) {
  const [problem, setProblem] = useState<string | null>(null);
  const invite = useSupervisorCall(invitePersonAction, { verb: "invite", toastErrors: false });
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const formElement = event.currentTarget;
    const form = new FormData(formElement);
    const password = String(form.get("password") ?? "");
    setProblem(null);
    invite.mutate(
      {
        email: String(form.get("email") ?? "").trim(),
        name: String(form.get("name") ?? "").trim(),
        role: form.get("role") as (typeof ROLES)[number],
        ...(password ? { password } : {}),
      },
      {
        onSuccess: (result) => {
          formElement.reset();
          onInvited({ email: result.person.email, password: result.password });
        },
        onError: (error) => {
          const field = error instanceof ActionFailure ? error.error.field : undefined;
          const label = field === "email" ? "Email" : field === "name" ? "Name" : field === "password" ? "Password" : null;
          setProblem(label && error instanceof ActionFailure ? `${label}: ${error.error.message.replace(/^(email|name|password) /, "")}.` : sentence(error));
        },
      },
    );
  };
  return (
    <form noValidate onSubmit={onSubmit} aria-label="Invite a person" className="rounded-lg border border-slate-200 bg-white p-3 shadow-sm">
      <h2 className="font-semibold">Invite a person</h2>
      <div className="mt-2 grid grid-cols-1 gap-3 sm:grid-cols-2 lg:grid-cols-[1fr_1fr_9rem_1fr_auto] lg:items-end">
        <TextField name="email" type="email" label="Email" required autoComplete="off" />
        <TextField name="name" label="Name" required autoComplete="off" />
        <SelectField name="role" label="Role" defaultValue="staff">
          {ROLES.map((role) => (
            <option key={role} value={role}>
              {role}
            </option>
          ))}
        </SelectField>
        <TextField name="password" type="password" label="Initial password" hint="Leave blank to generate one (shown once)" autoComplete="new-password" />
        <Button type="submit" tone="primary" disabled={invite.isPending} className="lg:mb-5">
          {invite.isPending ? "Inviting…" : "Invite"}
        </Button>
      </div>
      {problem ? <p role="alert" className="mt-2 text-sm text-red-800">{problem}</p> : null}
    </form>
  );
}

function PersonRowView({ person, viewer, onDisable }: { person: PersonView; viewer: Viewer; onDisable: (p: PersonView) => void }) {
  const { notify } = useToast();
  // Callbacks on the hook, not on mutate(): they fire even if the row re-mounts meanwhile.
  const role = useSupervisorCall(setPersonRoleAction, {
    verb: "change the role of",
    onSuccess: (_value, input) => notify("info", `${person.name} is now ${input.role}.`),
  });
  const enable = useSupervisorCall(setPersonDisabledAction, { verb: "enable", onSuccess: () => notify("info", `${person.name} is enabled.`) });
  const unlock = useSupervisorCall(unlockSignInAction, { verb: "unlock", onSuccess: () => notify("info", `${person.name} can sign in again.`) });
  const you = person.actorId === viewer.actorId;
  return (
    <tr className="border-t border-slate-200 max-sm:flex max-sm:flex-wrap max-sm:items-center max-sm:gap-x-2 max-sm:py-1">
      <th scope="row" className="px-3 py-2 font-medium max-sm:py-1">
        {person.name}
        {you ? <span className="ml-1 text-xs font-normal text-slate-700">(you)</span> : null}
      </th>
      <td className="px-3 py-2 break-all max-sm:py-1">{person.email}</td>
      <td className="px-3 py-2">
        <select
          aria-label={`Role of ${person.name}`}
          className={`${controlClass.replace("w-full", "")} w-32`}
          value={person.role}
          disabled={role.isPending}
          onChange={(e) =>
            role.mutate({ actorId: person.actorId, role: e.target.value as (typeof ROLES)[number] })
          }
        >
          {ROLES.map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </select>
      </td>
      <td className="px-3 py-2 whitespace-nowrap" data-testid="sign-in-state">
        {person.disabled ? <Badge tone="red">disabled</Badge> : person.locked ? <Badge tone="amber">locked: {person.failures} failed sign-ins</Badge> : <Badge tone="green">can sign in</Badge>}
      </td>
      <td className="px-3 py-2 whitespace-nowrap max-sm:hidden"><LocalTime iso={person.createdAt} withDate /></td>
      <td className="px-3 py-2">
        <div className="flex flex-wrap gap-2">
          {person.locked ? (
            <Button size="sm" aria-label={`Unlock sign-in of ${person.name}`} disabled={unlock.isPending}
              onClick={() => unlock.mutate({ actorId: person.actorId })}>
              Unlock
            </Button>
          ) : null}
          {!person.disabled ? <ResetLinkButton person={person} /> : null}
          {person.disabled ? (
            <Button size="sm" aria-label={`Enable ${person.name}`} disabled={enable.isPending}
              onClick={() => enable.mutate({ actorId: person.actorId, disabled: false })}>
              Enable
            </Button>
          ) : (
            <Button size="sm" tone="danger" aria-label={`Disable ${person.name}`} onClick={() => onDisable(person)}>
              Disable…
            </Button>
          )}
        </div>
      </td>
    </tr>
  );
}

/** People who sign in: invite, change role, disable or enable, unlock a locked sign-in. */
export function People({ initial, viewer }: { initial: PersonView[]; viewer: Viewer }) {
  const { notify } = useToast();
  const { data } = useQuery({ queryKey: supervisorKeys.people, queryFn: async () => toWire(await unwrap(peopleAction({}))), initialData: initial });
  const [invited, setInvited] = useState<{ email: string; password: string | null } | null>(null);
  const [disabling, setDisabling] = useState<PersonView | null>(null);
  const disable = useSupervisorCall(setPersonDisabledAction, {
    verb: "disable",
    onSuccess: (_value, input) => notify("info", `${data.find((p) => p.actorId === input.actorId)?.name ?? "The person"} is disabled.`),
  });
  return (
    <div className="space-y-6">
      <InvitePerson onInvited={setInvited} />
      <section aria-labelledby="people-heading">
        <h2 id="people-heading" className="mb-2 text-lg font-semibold">People ({data.length})</h2>
        <p className="mb-2 text-sm text-slate-700">
          The board always keeps one enabled supervisor: the last one can be neither demoted nor disabled, by anyone (themselves included).
        </p>
        <div role="region" aria-label="People table" tabIndex={0} className="relative overflow-x-auto rounded-lg border border-slate-200 bg-white focus-visible:outline-2 focus-visible:outline-blue-600">
          {/* On a phone each person is a block of wrapped cells, so the actions are never off to the right. */}
          <table className="min-w-full text-left text-sm max-sm:block">
            <thead className="bg-slate-100 text-xs text-slate-700 uppercase max-sm:sr-only">
              <tr>
                <th scope="col" className="px-3 py-2">Name</th>
                <th scope="col" className="px-3 py-2">Email</th>
                <th scope="col" className="px-3 py-2">Role</th>
                <th scope="col" className="px-3 py-2">Sign-in</th>
                <th scope="col" className="px-3 py-2">Since</th>
                <th scope="col" className="px-3 py-2"><span className="sr-only">Actions</span></th>
              </tr>
            </thead>
            <tbody className="max-sm:block">
              {data.map((person) => (
                <PersonRowView key={person.actorId} person={person} viewer={viewer} onDisable={setDisabling} />
              ))}
            </tbody>
          </table>
        </div>
      </section>
      <Dialog open={invited !== null} onClose={() => setInvited(null)} title={invited ? `${invited.email} is invited` : ""}>
        {invited ? (
          <div className="space-y-3">
            {invited.password ? (
              <>
                <p role="note" className="rounded border border-amber-400 bg-amber-50 px-2 py-1.5 text-sm text-amber-950">
                  Give them this password now: it won&apos;t be shown again. Only its hash is stored.
                </p>
                <label className="block text-sm font-medium" htmlFor="initial-password">Initial password</label>
                <input id="initial-password" readOnly value={invited.password} onFocus={(e) => e.currentTarget.select()}
                  className="block w-full rounded-md border border-slate-300 bg-slate-50 px-2 py-1.5 font-mono text-sm focus-visible:outline-2 focus-visible:outline-blue-600" />
              </>
            ) : (
              <p className="text-sm">They sign in with the password you set.</p>
            )}
            <div className="flex justify-end">
              <Button tone="primary" onClick={() => setInvited(null)}>Done</Button>
            </div>
          </div>
        ) : null}
      </Dialog>
      <Dialog open={disabling !== null} onClose={() => setDisabling(null)} title={disabling ? `Disable ${disabling.name}?` : ""}>
        {disabling ? (
          <div className="space-y-4">
            <p className="text-sm">They can no longer sign in, and their open sessions stop working on their next request. You can enable them again.</p>
            <div className="flex flex-wrap justify-end gap-2">
              <Button onClick={() => setDisabling(null)}>Keep them</Button>
              <Button
                tone="danger"
                onClick={() => {
                  const person = disabling;
                  setDisabling(null);
                  disable.mutate({ actorId: person.actorId, disabled: true });
                }}
              >
                Disable {disabling.name}
              </Button>
            </div>
          </div>
        ) : null}
      </Dialog>
    </div>
  );
}
