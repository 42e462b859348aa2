"use client";

import { useState } from "react";
import { archiveQueueAction, unarchiveQueueAction } from "@/app/queues/actions";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { useToast } from "@/components/ui/toaster";
import type { QueueSettingsView } from "./types";
import { useSupervisorCall } from "./use-supervisor";

/** Archive (after a confirmation that says what it does) or restore a queue. default is never archived. */
export function ArchiveControl({ queue }: { queue: QueueSettingsView }) {
  const [confirming, setConfirming] = useState(false);
  const { notify } = useToast();
  const archive = useSupervisorCall(archiveQueueAction, {
    verb: "archive",
    onSuccess: () => {
      setConfirming(false);
      notify("info", `Archived ${queue.name}: it is hidden from the pickers and takes no new tasks or claims.`);
    },
  });
  const restore = useSupervisorCall(unarchiveQueueAction, {
    verb: "restore",
    onSuccess: () => notify("info", `Restored ${queue.name}: it is back in the pickers and takes new work.`),
  });
  if (queue.archivedAt) {
    return (
      <Button size="sm" disabled={restore.isPending} onClick={() => restore.mutate({ queue: queue.name })}>
        {`Restore ${queue.name}`}
      </Button>
    );
  }
  if (queue.name === "default") return null;
  const open = queue.counts.queued + queue.counts.claimed + queue.counts.started + queue.counts.escalated;
  return (
    <>
      <Button size="sm" tone="danger" onClick={() => setConfirming(true)}>
        {`Archive ${queue.name}`}
      </Button>
      <Dialog open={confirming} onClose={() => setConfirming(false)} title={`Archive ${queue.name}?`}>
        <div className="space-y-2 text-sm text-slate-700">
          <p>
            Archiving hides <strong>{queue.name}</strong> from the queue pickers and filters. Nobody can create tasks in it or
            claim its tasks until you restore it.
          </p>
          <p>
            Nothing is deleted: its history stays readable.
            {open > 0
              ? ` Its ${open} open task${open === 1 ? " stays" : "s stay"}: held ones can still be finished, queued ones wait until it is restored (or you cancel them).`
              : " It has no open tasks."}
          </p>
        </div>
        <div className="mt-4 flex justify-end gap-2">
          <Button onClick={() => setConfirming(false)}>Keep it</Button>
          <Button tone="danger" disabled={archive.isPending} onClick={() => archive.mutate({ queue: queue.name })}>
            {archive.isPending ? "Archiving…" : `Archive ${queue.name}`}
          </Button>
        </div>
      </Dialog>
    </>
  );
}
