import Link from "next/link";
import type { Webhook } from "@/lib/webhooks/ops";

/** The inbox's notice of webhooks a receiver disabled (410 Gone): nobody hears of those events any more. */
export function DisabledWebhooks({ hooks }: { hooks: Webhook[] }) {
  if (hooks.length === 0) return null;
  return (
    <section role="status" aria-label="Disabled webhooks" className="mb-4 rounded-lg border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-950">
      <h2 className="font-semibold">{hooks.length === 1 ? "A webhook was disabled" : `${hooks.length} webhooks were disabled`}</h2>
      <ul className="mt-1 list-disc pl-5">
        {hooks.map((hook) => (
          <li key={hook.id} className="break-all">
            {hook.url}: {hook.disabledReason}, {hook.disabledAt?.toISOString().slice(0, 16).replace("T", " ")} UTC
          </li>
        ))}
      </ul>
      <p className="mt-1">
        Its events are no longer sent. <Link href="/webhooks" className="font-medium underline">Open webhooks</Link> to delete it or register the receiver again.
      </p>
    </section>
  );
}
