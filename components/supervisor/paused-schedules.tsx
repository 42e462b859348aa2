import Link from "next/link";
import type { Schedule } from "@/lib/schedules/ops";

/**
 * The inbox's notice of schedules paused because the authority they acted with ended
 * (lib/auth/authority.ts): they make no task until a supervisor adopts them on /schedules.
 */
export function PausedSchedules({ schedules }: { schedules: Schedule[] }) {
  if (schedules.length === 0) return null;
  return (
    <section role="status" aria-label="Paused schedules" className="mb-4 rounded-lg border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-950">
      <h2 className="font-semibold">{schedules.length === 1 ? "A schedule is paused" : `${schedules.length} schedules are paused`}</h2>
      <ul className="mt-1 list-disc pl-5">
        {schedules.map((s) => (
          <li key={s.id} className="break-words">{s.name}: {s.authorityEndedReason}</li>
        ))}
      </ul>
      <p className="mt-1">
        They make no task until a supervisor adopts them. <Link href="/schedules" className="font-medium underline">Open schedules</Link> to adopt or delete them.
      </p>
    </section>
  );
}
