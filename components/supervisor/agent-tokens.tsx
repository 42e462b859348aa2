"use client";

import { EmptyState } from "@/components/ui/empty-state";
import { useQuery } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { useHydrated } from "@/components/ui/local-time";
import { createTokenAction, revokeTokenAction } from "@/app/actions/supervise";
import { agentTokensAction } from "@/app/agents/actions";
import { ActionFailure, unwrap } from "@/components/task/mutations";
import { toWire } from "@/components/task/wire";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { SelectField, TextField } from "@/components/ui/field";
import { LocalTime } from "@/components/ui/local-time";
import { useToast } from "@/components/ui/toaster";
import { Fleet, type FleetView } from "./fleet";
import { MonthlyBudgetButton, monthText } from "./monthly-budget";
import { supervisorKeys } from "./keys";
import type { AgentTokenView } from "./types";
import { supervisorErrorSentence, useSupervisorCall } from "./use-supervisor";

const ROLES = ["agent", "observer", "supervisor"] as const;
/** Lifetimes offered for a new token; 90 days is the default (lib/auth/tokens.ts DEFAULT_TOKEN_DAYS). */
const LIFETIMES = [
  { value: "30", label: "30 days" },
  { value: "90", label: "90 days" },
  { value: "365", label: "1 year" },
  { value: "never", label: "never expires" },
] as const;

/** What to run with a new token: the reference agent (scripts/agent.ts) and an MCP client (docs/mcp.md). */
export function startCommands(origin: string, token: string) {
  return {
    agent: `CLAIMBOARD_URL=${origin} CLAIMBOARD_TOKEN=${token} npm run agent -- --queue default`,
    mcpStdio: JSON.stringify(
      { mcpServers: { claimboard: { command: "npm", args: ["--prefix", "/path/to/claimboard", "run", "-s", "mcp"], env: { CLAIMBOARD_URL: origin, CLAIMBOARD_TOKEN: token } } } },
      null,
      2,
    ),
    mcpHttp: JSON.stringify({ mcpServers: { claimboard: { type: "http", url: `${origin}/api/mcp`, headers: { Authorization: `Bearer ${token}` } } } }, null, 2),
  };
}

function Snippet({ id, label, value, rows }: { id: string; label: string; value: string; rows: number }) {
  return (
    <div>
      <label className="block text-sm font-medium" htmlFor={id}>
        {label}
      </label>
      <textarea
        id={id}
        readOnly
        rows={rows}
        value={value}
        onFocus={(e) => e.currentTarget.select()}
        className="mt-1 block w-full resize-none rounded-md border border-slate-300 bg-slate-50 px-2 py-1.5 font-mono text-xs focus-visible:outline-2 focus-visible:outline-blue-600"
      />
    </div>
  );
}

/** The secret, once: copy it now, it is stored only as a hash. */
function NewTokenDialog({ token, onClose }: { token: { name: string; token: string } | null; onClose: () => void }) {
  const { notify } = useToast();
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(token!.token);
      notify("info", "Token copied to the clipboard.");
    } catch {
      notify("error", "Couldn't copy: select the token and copy it by hand.");
    }
  };
  return (
    <Dialog open={token !== null} onClose={onClose} title={token ? `Token ${token.name} created` : ""}>
      {token ? (
        <div className="space-y-3">
          <p role="note" className="rounded border border-amber-400 bg-amber-50 px-2 py-1.5 text-sm text-amber-950">
            Copy it now: this token won&apos;t be shown again. Only its hash is stored.
          </p>
          <label className="block text-sm font-medium" htmlFor="new-token">
            Token
          </label>
          <input
            id="new-token"
            readOnly
            value={token.token}
            onFocus={(e) => e.currentTarget.select()}
            className="block w-full rounded-md border border-slate-300 bg-slate-50 px-2 py-1.5 font-mono text-xs focus-visible:outline-2 focus-visible:outline-blue-600"
          />
          <Commands token={token.token} />
          <div className="flex flex-wrap justify-end gap-2">
            <Button onClick={() => void copy()}>Copy token</Button>
            <Button tone="primary" onClick={onClose}>
              Done
            </Button>
          </div>
        </div>
      ) : null}
    </Dialog>
  );
}

/** This server's address as the browser reaches it: what an agent on the same network would use. */
function Commands({ token }: { token: string }) {
  const hydrated = useHydrated();
  const commands = startCommands(hydrated ? window.location.origin : "http://localhost:3000", token);
  return (
    <>
      <Snippet id="start-agent" label="Start the reference agent (from a checkout of Claimboard; pick your queue)" value={commands.agent} rows={3} />
      <Snippet id="mcp-stdio" label="MCP client config, stdio (npm run mcp)" value={commands.mcpStdio} rows={6} />
      <Snippet id="mcp-http" label="MCP client config, HTTP (POST /api/mcp)" value={commands.mcpHttp} rows={6} />
    </>
  );
}

function CreateToken({ onCreated }: { onCreated: (token: { name: string; token: string }) => void }) {
  const [problem, setProblem] = useState<string | null>(null);
  const create = useSupervisorCall(createTokenAction, { verb: "create", toastErrors: false });
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const formElement = event.currentTarget;
    const form = new FormData(formElement);
    setProblem(null);
    create.mutate(
      {
        name: String(form.get("name") ?? "").trim(),
        role: form.get("role") as (typeof ROLES)[number],
        expiresInDays: form.get("expires") === "never" ? null : Number(form.get("expires") ?? 90),
      },
      {
        onSuccess: (created) => {
          formElement.reset();
          onCreated(created);
        },
        onError: (error) =>
          setProblem(error instanceof ActionFailure && error.error.field === "name" ? `Name: ${error.error.message}.` : supervisorErrorSentence(error, "create")),
      },
    );
  };
  return (
    <form noValidate onSubmit={onSubmit} aria-label="Create a token" className="rounded-lg border border-slate-200 bg-white p-3 shadow-sm">
      <h2 className="font-semibold">Create a token</h2>
      <div className="mt-2 grid grid-cols-1 gap-3 sm:grid-cols-[1fr_10rem_10rem_auto] sm:items-end">
        <TextField name="name" label="Token name" hint="A-Z, a-z, 0-9, '.', '_' or '-'; up to 64" required autoComplete="off" />
        <SelectField name="role" label="Role" defaultValue="agent">
          {ROLES.map((role) => (
            <option key={role} value={role}>
              {role}
            </option>
          ))}
        </SelectField>
        <SelectField name="expires" label="Expires after" defaultValue="90">
          {LIFETIMES.map((lifetime) => (
            <option key={lifetime.value} value={lifetime.value}>
              {lifetime.label}
            </option>
          ))}
        </SelectField>
        <Button type="submit" tone="primary" disabled={create.isPending} className="sm:mb-5">
          {create.isPending ? "Creating…" : "Create token"}
        </Button>
      </div>
      {problem ? <p role="alert" className="mt-2 text-sm text-red-800">{problem}</p> : null}
    </form>
  );
}

/** Agent tokens: who they are, when used, and create / revoke. The secret never leaves the create dialog. */
export function AgentTokens({ initial, fleet }: { initial: AgentTokenView[]; fleet: FleetView }) {
  const { notify } = useToast();
  const { data } = useQuery({
    queryKey: supervisorKeys.tokens,
    queryFn: async () => toWire(await unwrap(agentTokensAction({}))),
    initialData: initial,
  });
  const [created, setCreated] = useState<{ name: string; token: string } | null>(null);
  const [revoking, setRevoking] = useState<string | null>(null);
  const revoke = useSupervisorCall(revokeTokenAction, {
    verb: "revoke",
    onSuccess: ({ revoked }) => notify("info", `Token ${revoked} is revoked; it stops working on its next request.`),
  });
  return (
    <div className="space-y-6">
      <CreateToken onCreated={setCreated} />
      <Fleet initial={fleet} onRevoke={setRevoking} />
      <section aria-labelledby="tokens-heading">
        <h2 id="tokens-heading" className="mb-2 text-lg font-semibold">
          Tokens
        </h2>
        {data.length === 0 ? (
          <div className="mb-2">
            <EmptyState testId="tokens-empty" action={{ label: "Create a token", focus: 'form[aria-label="Create a token"] input' }}>
              No tokens yet: an agent needs one to call the API or MCP. It is shown once, when you create it.
            </EmptyState>
          </div>
        ) : null}
        <div role="region" aria-label="Tokens table" tabIndex={0} className="relative overflow-x-auto rounded-lg border border-slate-200 bg-white focus-visible:outline-2 focus-visible:outline-blue-600">
          {/* On a phone each token is a block of wrapped cells (as /people's rows), so its actions are never off to the right. */}
          <table className="min-w-full text-left text-sm max-sm:block">
            <thead className="bg-slate-100 text-xs text-slate-700 uppercase max-sm:sr-only">
              <tr>
                <th scope="col" className="px-3 py-2">Name</th>
                <th scope="col" className="px-3 py-2">Prefix</th>
                <th scope="col" className="px-3 py-2">Role</th>
                <th scope="col" className="px-3 py-2">Created</th>
                <th scope="col" className="px-3 py-2">Expires</th>
                <th scope="col" className="px-3 py-2">Last used</th>
                <th scope="col" className="px-3 py-2">This month</th>
                <th scope="col" className="px-3 py-2">Status</th>
                <th scope="col" className="px-3 py-2"><span className="sr-only">Actions</span></th>
              </tr>
            </thead>
            <tbody className="max-sm:block">
              {data.map((token) => (
                <tr key={token.id} className="border-t border-slate-200 max-sm:flex max-sm:flex-wrap max-sm:items-center max-sm:gap-x-2 max-sm:py-1">
                  <th scope="row" className="min-w-36 px-3 py-2 font-medium break-all max-sm:w-full max-sm:py-1">
                    {token.name}
                    {token.connection ? (
                      <span className="block text-xs font-normal text-slate-600" data-testid="token-connection">
                        {token.connection.client} for {token.connection.owner} (signed in by OAuth)
                      </span>
                    ) : null}
                  </th>
                  <td className="px-3 py-2 font-mono text-xs max-sm:hidden">{token.prefix}…</td>
                  <td className="px-3 py-2">{token.role}</td>
                  <td className="px-3 py-2">
                    <LocalTime iso={token.createdAt} withDate />
                    {token.createdBy ? <span className="block text-xs text-slate-600">by {token.createdBy.name}</span> : null}
                  </td>
                  <td className="px-3 py-2">{token.expiresAt ? <LocalTime iso={token.expiresAt} withDate /> : "never"}</td>
                  <td className="px-3 py-2">{token.lastUsedAt ? <LocalTime iso={token.lastUsedAt} withDate /> : "never"}</td>
                  <td className="px-3 py-2" data-testid="token-month">{monthText(token)}</td>
                  <td className="px-3 py-2 whitespace-nowrap">
                    {token.revokedAt ? (
                      <Badge tone="red">revoked <LocalTime iso={token.revokedAt} withDate /></Badge>
                    ) : (
                      <Badge tone="green">live</Badge>
                    )}
                  </td>
                  <td className="px-3 py-2">
                    {token.revokedAt ? null : (
                      <div className="flex gap-1">
                        {token.role === "agent" ? <MonthlyBudgetButton token={token} /> : null}
                        <Button size="sm" tone="danger" aria-label={`Revoke ${token.name}`} onClick={() => setRevoking(token.name)}>
                          Revoke
                        </Button>
                      </div>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
      <NewTokenDialog token={created} onClose={() => setCreated(null)} />
      <Dialog open={revoking !== null} onClose={() => setRevoking(null)} title={revoking ? `Revoke token ${revoking}?` : ""}>
        {revoking ? (
          <div className="space-y-4">
            <p className="text-sm">Agents using it are refused from their next request. This cannot be undone.</p>
            <div className="flex flex-wrap justify-end gap-2">
              <Button onClick={() => setRevoking(null)}>Keep it</Button>
              <Button
                tone="danger"
                onClick={() => {
                  revoke.mutate({ name: revoking });
                  setRevoking(null);
                }}
              >
                Revoke token
              </Button>
            </div>
          </div>
        ) : null}
      </Dialog>
    </div>
  );
}
