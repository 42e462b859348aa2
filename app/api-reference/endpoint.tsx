import type { DeepReadonly, OpenApiOperation } from "@/lib/http/openapi";
import { bodyOf, fieldsOf, limitsOf, typeOf, type FieldRow, type Schema } from "./schema-text";

type Operation = DeepReadonly<OpenApiOperation>;

const WHERE = { path: "in the path", query: "in the query string", header: "a request header" } as const;

const BADGE: Record<string, string> = {
  GET: "bg-emerald-100 text-emerald-900 ring-emerald-700/30",
  POST: "bg-blue-100 text-blue-900 ring-blue-700/30",
};

export function MethodBadge({ method }: { method: string }) {
  return (
    <span className={`inline-block rounded px-2 py-0.5 font-mono text-xs font-bold ring-1 ring-inset ${BADGE[method] ?? "bg-slate-100 ring-slate-700/30"}`}>
      {method}
    </span>
  );
}

export const tableClass = "w-full min-w-[18rem] border-collapse text-left text-sm";
export const thClass = "border-b border-slate-300 px-2 py-1.5 font-semibold";
export const tdClass = "border-b border-slate-200 px-2 py-1.5 align-top";

/** A table that scrolls sideways on a narrow screen instead of squeezing its columns. */
export function Scroll({ children, label }: { children: React.ReactNode; label: string }) {
  return (
    <div className="mt-2 overflow-x-auto" role="region" aria-label={label} tabIndex={0}>
      {children}
    </div>
  );
}

export function FieldTable({ caption, rows }: { caption: string; rows: FieldRow[] }) {
  return (
    <Scroll label={caption}>
      <table className={tableClass}>
        <caption className="text-left text-sm font-semibold">{caption}</caption>
        <thead>
          <tr>
            <th scope="col" className={thClass}>Field</th>
            <th scope="col" className={thClass}>Type</th>
            <th scope="col" className={thClass}>Required</th>
            <th scope="col" className={thClass}>Limits</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.name}>
              <th scope="row" className={`${tdClass} font-mono font-normal`}>{row.name}</th>
              <td className={`${tdClass} font-mono`}>{row.type}</td>
              <td className={tdClass}>{row.required ? "yes" : "no"}</td>
              <td className={`${tdClass} font-mono text-xs [overflow-wrap:anywhere]`}>{row.limits || "–"}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Scroll>
  );
}

export function EndpointCard({ method, path, op }: { method: string; path: string; op: Operation }) {
  const headingId = `${op.operationId}-heading`;
  const params = (op.parameters ?? []).map((p) => ({
    name: p.name,
    type: typeOf(p.schema as Schema),
    required: p.required,
    limits: [WHERE[p.in], limitsOf(p.schema as Schema)].filter(Boolean).join("; "),
  }));
  const body = op.requestBody?.content["application/json"]?.schema as Schema | undefined;
  const session = op.security.some((requirement) => "sessionCookie" in requirement);
  const roles = op["x-roles"] === "public" ? "anyone (no token)" : `${op["x-roles"].join(", ")} tokens${session ? ", or a signed-in browser session" : ""}`;
  const [successType] = Object.keys(Object.values(op.responses)[0]?.content ?? {});
  return (
    <article id={op.operationId} aria-labelledby={headingId} className="scroll-mt-4 rounded-lg border border-slate-200 bg-white p-4 shadow-sm">
      <h3 id={headingId} className="flex flex-wrap items-center gap-2 text-base font-semibold">
        <MethodBadge method={method} />
        <code className="break-all font-mono">/api/v1{path}</code>
      </h3>
      <p className="mt-1 text-slate-700">{op.summary}</p>
      <dl className="mt-2 grid grid-cols-[auto_1fr] gap-x-3 gap-y-1 text-sm">
        <dt className="font-semibold">Who may call</dt>
        <dd>{roles}</dd>
        {successType && successType !== "application/json" && (
          <>
            <dt className="font-semibold">Answers with</dt>
            <dd className="font-mono">{successType}</dd>
          </>
        )}
        <dt className="font-semibold">operationId</dt>
        <dd className="font-mono">{op.operationId}</dd>
      </dl>
      {params.length > 0 && <FieldTable caption="Parameters" rows={params} />}
      {body && (
        <FieldTable caption={`Request body (JSON${op.requestBody?.required ? "" : ", may be empty"}; unknown fields are refused)`} rows={fieldsOf(body)} />
      )}
      <Scroll label={`Responses of ${op.operationId}`}>
        <table className={tableClass}>
          <caption className="text-left text-sm font-semibold">Responses</caption>
          <thead>
            <tr>
              <th scope="col" className={thClass}>Status</th>
              <th scope="col" className={thClass}>Meaning</th>
              <th scope="col" className={thClass}>Body</th>
            </tr>
          </thead>
          <tbody>
            {Object.entries(op.responses).map(([status, response]) => {
              const schema = Object.values(response.content ?? {})[0]?.schema as Schema | undefined;
              return (
                <tr key={status}>
                  <th scope="row" className={`${tdClass} font-mono`}>{status}</th>
                  <td className={tdClass}>{response.description.replaceAll("`", "")}</td>
                  <td className={`${tdClass} font-mono text-xs [overflow-wrap:anywhere]`}>{bodyOf(schema)}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </Scroll>
    </article>
  );
}
