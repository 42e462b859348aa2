"use client";

import { useState } from "react";
import { issuePasswordResetAction } from "@/app/people/actions";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { useHydrated } from "@/components/ui/local-time";
import { LocalTime } from "@/components/ui/local-time";
import type { PersonView } from "./people";
import { useSupervisorCall } from "./use-supervisor";

/**
 * A one-time password reset link for someone who forgot theirs (lib/auth/password-reset.ts):
 * shown once, to be handed over by the supervisor; it works once, for a day. The secret is
 * in the fragment (#reset=…), which no server or proxy log ever sees.
 */
export function ResetLinkButton({ person }: { person: PersonView }) {
  const hydrated = useHydrated();
  const [link, setLink] = useState<{ url: string; expiresAt: string } | null>(null);
  const issue = useSupervisorCall(issuePasswordResetAction, {
    verb: "make a reset link for",
    onSuccess: (value) =>
      setLink({ url: `${hydrated ? window.location.origin : ""}/login#reset=${value.token}`, expiresAt: new Date(value.expiresAt).toISOString() }),
  });
  return (
    <>
      <Button size="sm" aria-label={`Password reset link for ${person.name}`} disabled={issue.isPending} onClick={() => issue.mutate({ actorId: person.actorId })}>
        Reset link
      </Button>
      <Dialog open={link !== null} onClose={() => setLink(null)} title={`Password reset link for ${person.name}`}>
        {link ? (
          <div className="space-y-3">
            <p role="note" className="rounded border border-amber-400 bg-amber-50 px-2 py-1.5 text-sm text-amber-950">
              Give this link to {person.name} yourself. It is shown only now, works once, until <LocalTime iso={link.expiresAt} withDate />,
              and a newer link replaces it.
            </p>
            <label className="block text-sm font-medium" htmlFor="reset-link">Link</label>
            <input
              id="reset-link"
              readOnly
              value={link.url}
              onFocus={(e) => e.currentTarget.select()}
              className="block w-full rounded-md border border-slate-300 bg-slate-50 px-2 py-1.5 font-mono text-xs"
            />
            <div className="flex justify-end">
              <Button tone="primary" onClick={() => setLink(null)}>Done</Button>
            </div>
          </div>
        ) : null}
      </Dialog>
    </>
  );
}
