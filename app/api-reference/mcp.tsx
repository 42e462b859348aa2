import { rolesOf as endpointRoles } from "@/lib/http/access";
import { endpoints } from "@/lib/http/endpoints";
import { tools } from "@/lib/mcp/tools";
import { SCOPES } from "@/lib/oauth/config";
import { Scroll, tableClass, tdClass, thClass } from "./endpoint";

const code = "rounded bg-slate-100 px-1 font-mono text-[0.9em]";

/** Who is shown a tool: its endpoint's token roles, the registry's (lib/http/endpoints.ts). */
function rolesOf(endpoint: keyof typeof endpoints): string {
  const roles = endpointRoles(endpoints[endpoint]);
  return roles === "public" ? "anyone" : roles.join(", ");
}

const LEASE: Record<string, string> = { sets: "sets the lease", ends: "ends the lease", none: "–" };

/**
 * The MCP server on this page (issue 27 item 10): where it is, how to sign in, and every
 * tool from the table both transports run (lib/mcp/tools.ts), so the list cannot drift.
 */
export function McpSection({ base }: { base: string }) {
  const config = JSON.stringify({ mcpServers: { claimboard: { url: `${base}/api/mcp` } } }, null, 2);
  const stdio = `CLAIMBOARD_URL=${base} CLAIMBOARD_TOKEN=cb_… npm run -s mcp`;
  return (
    <>
      <p>
        Claimboard is also a <a className="text-blue-700 underline" href="https://modelcontextprotocol.io">Model Context Protocol</a> server, so an
        LLM agent works the board with tools instead of HTTP calls — under the same leases, version fences, limits and history as the API,
        because every tool is one call of the endpoints below.
      </p>
      <ul className="list-disc space-y-2 pl-5">
        <li>
          <strong>Streamable HTTP:</strong> <code className={`${code} break-all`}>POST {base}/api/mcp</code> with{" "}
          <code className={code}>Authorization: Bearer cb_…</code>, or add the URL to an MCP client and sign in: the server is its own OAuth
          authorization server (scopes: {Object.entries(SCOPES).map(([name, s], i) => (
            <span key={name}>
              {i > 0 ? ", " : ""}
              <code className={code}>{name}</code> — {s.text}
            </span>
          ))}).
        </li>
        <li>
          <strong>stdio</strong>, from a checkout of the app: <code className={`${code} break-all`}>{stdio}</code>
        </li>
        <li>Observers are shown only the read tools; a tool&apos;s refusal is the API&apos;s error code and sentence.</li>
      </ul>
      <p>A client configuration that adds this board by its URL:</p>
      <pre className="overflow-x-auto rounded-lg bg-slate-900 p-4 text-xs leading-relaxed text-slate-100" tabIndex={0}>
        <code>{config}</code>
      </pre>
      <Scroll label="MCP tools">
        <table className={tableClass}>
          <caption className="text-left text-sm font-semibold">Tools ({tools.length})</caption>
          <thead>
            <tr>
              <th scope="col" className={thClass}>Tool</th>
              <th scope="col" className={thClass}>What it does</th>
              <th scope="col" className={thClass}>Calls</th>
              <th scope="col" className={thClass}>Roles</th>
              <th scope="col" className={thClass}>Lease</th>
            </tr>
          </thead>
          <tbody>
            {tools.map((tool) => {
              const endpoint = endpoints[tool.endpoint];
              return (
                <tr key={tool.name}>
                  <th scope="row" className={`${tdClass} font-mono font-normal`}>{tool.name}</th>
                  <td className={tdClass}>{tool.title}</td>
                  <td className={tdClass}>
                    <a className="font-mono whitespace-nowrap text-blue-700 underline" href={`#${endpoint.operationId}`}>
                      {endpoint.method} {endpoint.path}
                    </a>
                  </td>
                  <td className={tdClass}>{rolesOf(tool.endpoint)}</td>
                  <td className={tdClass}>{LEASE[tool.leaseEffect]}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </Scroll>
    </>
  );
}
