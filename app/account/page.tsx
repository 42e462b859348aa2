import type { Metadata } from "next";
import { ChangePassword } from "@/components/auth/change-password";
import { NotificationSettings } from "@/components/notify/notification-settings";
import { requireUser } from "../_lib/session";

export const metadata: Metadata = { title: "Your account · Claimboard" };

export default async function AccountPage() {
  const user = await requireUser("/account");
  return (
    <main className="mx-auto max-w-md px-4 py-6">
      <h1 className="text-xl font-semibold">Your account</h1>
      <p className="mt-1 text-sm text-slate-700">
        {user.actor.name} · {user.email} · {user.role}
      </p>
      <ChangePassword />
      <NotificationSettings />
    </main>
  );
}
