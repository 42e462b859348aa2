import Link from "next/link";
import type { Webhook } from "@/lib/webhooks/ops";

const at = (date: Date | null) => `${date?.toISOString().slice(0, 16).replace("T", " ")} UTC`;

/**
 * The inbox's notice of webhooks that send nothing: disabled by their receiver (410 Gone), or
 * paused because the authority they acted with ended (lib/auth/authority.ts) until adopted.
 */
export function DisabledWebhooks({ hooks }: { hooks: Webhook[] }) {
  if (hooks.length === 0) return null;
  const paused = hooks.some((hook) => !hook.disabledAt);
  return (
    <section role="status" aria-label="Disabled webhooks" className="mb-4 rounded-lg border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-950">
      <h2 className="font-semibold">{hooks.length === 1 ? "A webhook sends nothing" : `${hooks.length} webhooks send nothing`}</h2>
      <ul className="mt-1 list-disc pl-5">
        {hooks.map((hook) => (
          <li key={hook.id} className="break-all">
            {hook.disabledAt
              ? <>{hook.url}: {hook.disabledReason}, {at(hook.disabledAt)}</>
              : <>{hook.url}: paused, {hook.authorityEndedReason}, {at(hook.authorityEndedAt)}</>}
          </li>
        ))}
      </ul>
      <p className="mt-1">
        Its events are no longer sent. <Link href="/webhooks" className="font-medium underline">Open webhooks</Link> to
        {paused ? " adopt a paused one," : ""} delete it or register the receiver again.
      </p>
    </section>
  );
}
