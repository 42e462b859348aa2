import Link from "next/link";
import { LiveIndicator } from "@/components/realtime/live-status";
import type { Viewer } from "@/components/task/wire";
import { focusRing } from "@/components/ui/button";
import { INBOX_KINDS } from "@/lib/attention/kinds";
import { NavLinks, type NavItem } from "./nav-links";
import { SignOutButton } from "./sign-out-button";

// The nav's counts (docs/attention.md): the board holds reviews, the person's own leases and
// their unknown effects; Questions its questions; the Inbox what the inbox asks a supervisor to decide.
const BOARD: NavItem[] = [
  { href: "/", label: "Board", badge: { kinds: ["reviews", "lapsing", "effects"], testId: "board-count" } },
  { href: "/questions", label: "Questions", badge: { kinds: ["questions"], testId: "questions-count" } },
];
const SUPERVISION: NavItem[] = [
  { href: "/inbox", label: "Inbox", badge: { kinds: INBOX_KINDS, testId: "inbox-count" } },
  { href: "/agents", label: "Agents" },
  { href: "/people", label: "People" },
  { href: "/queues", label: "Queues" },
  { href: "/schedules", label: "Schedules" },
  { href: "/webhooks", label: "Webhooks" },
  { href: "/insights", label: "Insights" },
];

/** The signed-in header: where to go (supervisors see their pages too), who you are, sign out. */
export function Header({ viewer }: { viewer: Viewer }) {
  const items = viewer.role === "supervisor" ? [...BOARD, ...SUPERVISION] : BOARD;
  return (
    <header className="border-b border-slate-200 bg-white">
      <div className="mx-auto flex max-w-screen-2xl flex-wrap items-center gap-x-4 gap-y-2 px-4 py-2">
        <Link href="/" className={`rounded text-lg font-semibold tracking-tight ${focusRing}`}>
          Claimboard
        </Link>
        <nav aria-label="Main" className="order-last w-full sm:order-none sm:w-auto">
          <NavLinks items={items} />
        </nav>
        <div className="ml-auto flex items-center gap-3">
          <LiveIndicator />
          <p className="text-sm" data-testid="signed-in-as">
            <Link href="/account" className="font-medium hover:underline" title="Your account: change your password">{viewer.name}</Link>{" "}
            <span className="text-slate-500">· {viewer.role}</span>
          </p>
          <SignOutButton />
        </div>
      </div>
    </header>
  );
}
