"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { focusRing } from "@/components/ui/button";
import type { AttentionKind } from "@/lib/attention/kinds";
import { AttentionBadge } from "./attention";

export interface NavItem {
  href: string;
  label: string;
  /** A live count beside the label: the sum of these kinds of what waits for the person (docs/attention.md). */
  badge?: { kinds: readonly AttentionKind[]; testId: string };
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
              {item.badge ? <AttentionBadge kinds={item.badge.kinds} testId={item.badge.testId} /> : null}
            </Link>
          </li>
        );
      })}
    </ul>
  );
}
