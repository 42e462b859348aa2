"use client";

import { createContext, useContext, type ReactNode } from "react";
import type { Viewer } from "@/components/task/wire";

const ViewerContext = createContext<Viewer | null>(null);

export function ViewerProvider({ viewer, children }: { viewer: Viewer | null; children: ReactNode }) {
  return <ViewerContext.Provider value={viewer}>{children}</ViewerContext.Provider>;
}

/** The signed-in person; only rendered below a page that already required a session. */
export function useViewer(): Viewer {
  const viewer = useContext(ViewerContext);
  if (!viewer) throw new Error("useViewer outside a signed-in page");
  return viewer;
}
