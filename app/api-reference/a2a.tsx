import { TaskState } from "@a2a-js/sdk";
import { A2A_STATE } from "@/lib/a2a/states";
import { Scroll, tableClass, tdClass, thClass } from "./endpoint";

const code = "rounded bg-slate-100 px-1 font-mono text-[0.9em]";

/**
 * The A2A server on this page (docs/a2a.md): where the card and the interface are, how to
 * call it, and the state mapping from the table the server itself uses (lib/a2a/states.ts).
 */
export function A2aSection({ base }: { base: string }) {
  return (
    <>
      <p>
        Agents that speak <a className="text-blue-700 underline" href="https://a2a-protocol.org/v1.0.0/specification/">A2A 1.0</a> hand
        tasks to the board and follow them: a message becomes a board task that people and agents claim, ask about and review.
      </p>
      <ul className="list-disc space-y-2 pl-5">
        <li>
          <strong>Agent card</strong> (public): <code className={`${code} break-all`}>GET {base}/.well-known/agent-card.json</code> — one skill per queue.
        </li>
        <li>
          <strong>JSON-RPC:</strong> <code className={`${code} break-all`}>POST {base}/api/a2a</code> with{" "}
          <code className={code}>Authorization: Bearer cb_…</code> (agent or supervisor) and <code className={code}>A2A-Version: 1.0</code>:{" "}
          <code className={code}>SendMessage</code>, <code className={code}>SendStreamingMessage</code>, <code className={code}>GetTask</code>,{" "}
          <code className={code}>ListTasks</code>, <code className={code}>CancelTask</code>, <code className={code}>SubscribeToTask</code>.
        </li>
        <li>
          A message&apos;s text is the task&apos;s title (first line) and description, its data parts the payload,{" "}
          <code className={code}>metadata.queue</code> the queue; a reply on an input-required task answers its question. Refusals carry the
          engine&apos;s sentence.
        </li>
      </ul>
      <Scroll label="A2A states">
        <table className={tableClass}>
          <caption className="text-left text-sm font-semibold">Board status → A2A state</caption>
          <thead>
            <tr>
              <th scope="col" className={thClass}>Board status</th>
              <th scope="col" className={thClass}>A2A state</th>
            </tr>
          </thead>
          <tbody>
            {Object.entries(A2A_STATE).map(([status, state]) => (
              <tr key={status}>
                <th scope="row" className={`${tdClass} font-mono font-normal`}>{status}</th>
                <td className={`${tdClass} font-mono`}>{TaskState[state]}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </Scroll>
    </>
  );
}
