import type { Metadata } from "next";
import { headers } from "next/headers";
import Link from "next/link";
import { issuerOf } from "@/lib/oauth/config";
import { buildOpenApiDocument } from "@/lib/http/openapi";
import { EndpointCard, FieldTable, Scroll, tableClass, tdClass, thClass } from "./endpoint";
import { fieldsOf, type Schema } from "./schema-text";
import { McpSection } from "./mcp";
import { A2aSection } from "./a2a";
import { limitLines, roleLines, TOKEN_LIFE } from "./security";

export const metadata: Metadata = {
  title: "API reference · Claimboard",
  description: "The Claimboard agent API: endpoints, errors, auth and limits",
};

const curlExample = (base: string) => `BASE=${base}/api/v1
AUTH="Authorization: Bearer $CLAIMBOARD_TOKEN"   # cb_…
JSON="Content-Type: application/json"

# 1. Claim the next task of a queue (204 and no body: nothing to do)
curl -sS -X POST "$BASE/claims" -H "$AUTH" -H "$JSON" -d '{"queue":"default"}'
# → {"task":{"id":"42","status":"claimed","version":2,"leaseUntil":"…",…}}

# 2. Start it at the version you were given (the version goes up by one)
curl -sS -X POST "$BASE/tasks/42/start" -H "$AUTH" -H "$JSON" -d '{"version":2}'
# → {"task":{"id":"42","status":"started","version":3,…}}

# 3. Renew the lease while working (same version, new leaseUntil)
curl -sS -X POST "$BASE/tasks/42/heartbeat" -H "$AUTH" -H "$JSON" \\
  -d '{"version":3,"progress":{"done":10,"of":40}}'

# 4. Complete it
curl -sS -X POST "$BASE/tasks/42/complete" -H "$AUTH" -H "$JSON" \\
  -d '{"version":3,"result":{"ok":true}}'
# → {"task":{"id":"42","status":"done","version":4,"owner":null,…}}`;

function Section({ id, title, children }: { id: string; title: string; children: React.ReactNode }) {
  return (
    <section aria-labelledby={`${id}-heading`} className="mt-10">
      <h2 id={`${id}-heading`} className="scroll-mt-4 text-xl font-semibold">
        {title}
      </h2>
      <div className="mt-3 space-y-3">{children}</div>
    </section>
  );
}

const CONTENTS = [
  ["auth", "Authentication"],
  ["limits", "Limits and retries"],
  ["errors", "Errors"],
  ["example", "Example: claim to complete"],
  ["mcp", "MCP: tools for AI agents"],
  ["a2a", "A2A: agents from other ecosystems"],
  ["objects", "Objects"],
] as const;

const code = "rounded bg-slate-100 px-1 font-mono text-[0.9em]";

export default async function ApiReferencePage() {
  // The server's own address, as the reader reached it (NEXTAUTH_URL when configured), so
  // every example can be pasted as it is.
  const base = issuerOf(await headers());
  const doc = buildOpenApiDocument();
  const schemas = doc.components.schemas as Readonly<Record<string, Schema>>;
  const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({ path, method: method.toUpperCase(), op })),
  );
  const tags = doc.tags.map((tag) => ({ ...tag, operations: operations.filter(({ op }) => op.tags.includes(tag.name)) }));

  return (
    <main className="mx-auto max-w-4xl px-4 py-8 sm:px-8">
      <p className="text-sm">
        <Link className="text-blue-700 underline" href="/">
          Claimboard
        </Link>
      </p>
      <h1 className="mt-2 text-2xl font-semibold">{doc.info.title} reference</h1>
      <p className="mt-2 text-slate-700">
        Version {doc.info.version}, at <code className={`${code} break-all`} data-testid="base-url">{base}{doc.servers[0]?.url}</code>. JSON in and out. The API only
        grows: nothing here is removed or changes meaning. The machine-readable form is the OpenAPI 3.1 document at{" "}
        <a className="text-blue-700 underline" href="/api/v1/openapi.json">
          /api/v1/openapi.json
        </a>
        ; this page is generated from the same registry.
      </p>

      <nav aria-label="On this page" className="mt-6 rounded-lg border border-slate-200 bg-white p-4 text-sm">
        <h2 className="font-semibold">On this page</h2>
        <div className="mt-2 grid gap-4 sm:grid-cols-[auto_1fr] sm:gap-10">
          <ul className="space-y-1">
            {[
              ...CONTENTS.filter(([id]) => id !== "objects"),
              ...tags.map((tag) => [`tag-${tag.name.toLowerCase()}`, `${tag.name} endpoints`] as const),
              ...CONTENTS.filter(([id]) => id === "objects"),
            ].map(([id, label]) => (
              <li key={id}>
                <a className="text-blue-700 underline" href={`#${id}-heading`}>
                  {label}
                </a>
              </li>
            ))}
          </ul>
          <ul className="space-y-1" aria-label="Endpoints">
            {operations.map(({ path, method, op }) => (
              <li key={op.operationId}>
                <a className="font-mono text-blue-700 underline" href={`#${op.operationId}`}>
                  {method} {path}
                </a>
              </li>
            ))}
          </ul>
        </div>
      </nav>

      <Section id="auth" title="Authentication">
        <p>
          Send <code className={code}>Authorization: Bearer cb_…</code>. A supervisor makes tokens (in the UI or with{" "}
          <code className={code}>npm run cli -- token create --name N</code>); a token is <code className={code}>cb_</code> and 43
          base64url characters (256 random bits), shown once, and only its SHA-256 hash is stored.
        </p>
        <p>Each token has a role; what each may call, from the registry the server routes by:</p>
        <ul className="list-disc space-y-1 pl-5">
          {roleLines().map((line) => (
            <li key={line}>{line}</li>
          ))}
        </ul>
        <p>{TOKEN_LIFE} A missing or unknown token answers 401 too.</p>
      </Section>

      <Section id="limits" title="Limits and retries">
        <ul className="list-disc space-y-2 pl-5">
          {limitLines().map((line) => (
            <li key={line}>{line}</li>
          ))}
          <li>
            <strong>Bodies:</strong> at most 256 KiB (413 <code className={code}>payload_too_large</code>); JSON fields such as{" "}
            <code className={code}>payload</code>, <code className={code}>progress</code> and <code className={code}>result</code>{" "}
            at most 64 KiB each. Unknown fields are refused with 400.
          </li>
          <li>
            <strong>Retries:</strong> an owner call that already took effect (same caller, same target state, e.g. a second{" "}
            <code className={code}>start</code> whose first answer was lost) answers 200 with the current task and writes no
            second event. A 409 <code className={code}>version_conflict</code> carries the current <code className={code}>task</code>.
          </li>
        </ul>
      </Section>

      <Section id="errors" title="Errors">
        <p>
          Every error has one shape and never carries a stack trace:{" "}
          <code className={`${code} break-all`}>{'{ "error": { "code": "…", "message": "…", "field"?: "…", "task"?: Task } }'}</code>
        </p>
        <Scroll label="Error codes">
          <table className={tableClass}>
            <caption className="sr-only">Error codes by HTTP status</caption>
            <thead>
              <tr>
                <th scope="col" className={thClass}>Status</th>
                <th scope="col" className={thClass}>Code</th>
                <th scope="col" className={thClass}>When</th>
              </tr>
            </thead>
            <tbody>
              {doc["x-error-codes"].map((row) => (
                <tr key={row.code}>
                  <td className={`${tdClass} font-mono`}>{row.status}</td>
                  <th scope="row" className={`${tdClass} font-mono font-normal`}>{row.code}</th>
                  <td className={tdClass}>{row.when.replaceAll("`", "")}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </Scroll>
      </Section>

      <Section id="example" title="Example: claim, start, heartbeat, complete">
        <pre className="overflow-x-auto rounded-lg bg-slate-900 p-4 text-xs leading-relaxed text-slate-100" tabIndex={0}>
          <code>{curlExample(base)}</code>
        </pre>
      </Section>

      <Section id="mcp" title="MCP: tools for AI agents">
        <McpSection base={base} />
      </Section>

      <Section id="a2a" title="A2A: agents from other ecosystems">
        <A2aSection base={base} />
      </Section>

      {tags.map((tag) => (
        <Section key={tag.name} id={`tag-${tag.name.toLowerCase()}`} title={`${tag.name} endpoints`}>
          <p className="text-slate-700">{tag.description}</p>
          {tag.operations.map(({ path, method, op }) => (
            <EndpointCard key={op.operationId} path={path} method={method} op={op} />
          ))}
        </Section>
      ))}

      <Section id="objects" title="Objects">
        {["Task", "TaskEvent", "Error"].map((name) => {
          // Error's fields are the ones inside its single `error` key.
          const schema = name === "Error" ? (schemas.Error?.properties as Record<string, Schema> | undefined)?.error : schemas[name];
          if (!schema) return null;
          return <FieldTable key={name} caption={name === "Error" ? "Error (the object under the error key)" : name} rows={fieldsOf(schema)} />;
        })}
      </Section>
    </main>
  );
}
