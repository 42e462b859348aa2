import type { Metadata } from "next";
import { getDatabase } from "@/db";
import { listPeople } from "@/lib/auth/people";
import { People } from "@/components/supervisor/people";
import { toWire } from "@/components/task/wire";
import { requireSupervisor, streamPosition, viewerOf } from "../_lib/session";

export const metadata: Metadata = { title: "People · Claimboard" };

export default async function PeoplePage() {
  const user = await requireSupervisor("/people", "people");
  await streamPosition(); // before any read: the browser's stream resumes from there
  const people = await listPeople(getDatabase().db);
  return (
    <main className="mx-auto max-w-screen-lg px-4 py-4">
      <h1 className="mb-4 text-xl font-semibold">People</h1>
      <People initial={toWire(people)} viewer={viewerOf(user)} />
    </main>
  );
}
