"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { InboxBadge } from "@/components/supervisor/inbox-badge";
import { focusRing } from "@/components/ui/button";

export interface NavItem {
  href: string;
  label: string;
  /** A live count beside the label (supervisors only: the escalation inbox). */
  badge?: "inbox";
}

export function NavLinks({ items }: { items: NavItem[] }) {
  const pathname = usePathname();
  return (
    <ul className="flex flex-wrap gap-1">
      {items.map((item) => {
        const current = item.href === "/" ? pathname === "/" || pathname.startsWith("/tasks") : pathname.startsWith(item.href);
        return (
          <li key={item.href}>
            <Link
              href={item.href}
              aria-current={current ? "page" : undefined}
              className={`block rounded-md px-3 py-1.5 text-sm font-medium whitespace-nowrap ${focusRing} ${
                current ? "bg-slate-900 text-white" : "text-slate-700 hover:bg-slate-200"
              }`}
            >
              {item.label}
              {item.badge === "inbox" ? <InboxBadge /> : null}
            </Link>
          </li>
        );
      })}
    </ul>
  );
}
