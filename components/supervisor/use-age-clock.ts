"use client";

import { useEffect, useState } from "react";
import { serverNow } from "@/components/realtime/clock";

/**
 * The estimated database time for ages ("40 min ago"), updated every 30 s — a per-second
 * tick would re-render every row for nothing. Null until hydrated, so the server's HTML and
 * the first client render agree (callers show the time instead).
 */
export function useAgeClock(): number | null {
  const [now, setNow] = useState<number | null>(null);
  useEffect(() => {
    const update = () => setNow(serverNow());
    const first = setTimeout(update, 0);
    const timer = setInterval(update, 30_000);
    return () => {
      clearTimeout(first);
      clearInterval(timer);
    };
  }, []);
  return now;
}
