"use client";

import { useState } from "react";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { TextArea } from "@/components/ui/field";
import { decisions } from "./decisions";
import type { InboxDecision } from "./escalated-task";
import { plural } from "./inbox-view";
import type { InboxTaskView } from "./types";
import { LIMITS } from "@/lib/limits";

export interface PendingDecision {
  decision: InboxDecision;
  items: InboxTaskView[];
  /** Where the tasks come from, for the sentence: "selected", "matching the search", a reason. */
  scope: string;
}

/**
 * Confirms a decision before it is made: always for Cancel and for more than one task. Says
 * what the decision means and takes a note (the reason), written in every task's event.
 */
export function DecisionDialog({ pending, onClose, onConfirm }: { pending: PendingDecision | null; onClose: () => void; onConfirm: (p: PendingDecision, reason: string) => void }) {
  const [note, setNote] = useState("");
  const close = () => {
    setNote("");
    onClose();
  };
  const verb = pending ? decisions[pending.decision] : null;
  const count = pending?.items.length ?? 0;
  const title = !pending || !verb ? "" : count === 1 ? `${verb.label} “${pending.items[0]!.task.title}”?` : `${verb.label} ${plural(count)}?`;
  return (
    <Dialog open={pending !== null} onClose={close} title={title}>
      {pending && verb ? (
        <form
          className="space-y-4"
          onSubmit={(event) => {
            event.preventDefault();
            onConfirm(pending, note.trim());
            setNote("");
          }}
        >
          <p className="text-sm">{verb.meaning}</p>
          {count > 1 ? (
            <p className="text-sm">
              {plural(count)} {pending.scope}. Tasks someone changes meanwhile are left alone and listed afterwards.
            </p>
          ) : null}
          <TextArea label="Note (optional)" hint="Why: kept in each task's history." value={note} limit={LIMITS.reason} onChange={(e) => setNote(e.target.value)} />
          <div className="flex flex-wrap justify-end gap-2">
            <Button type="button" onClick={close}>
              {count === 1 ? "Keep it" : "Keep them"}
            </Button>
            <Button type="submit" tone={pending.decision === "cancel" ? "danger" : "primary"} disabled={note.trim().length > LIMITS.reason}>
              {verb.label} {plural(count)}
            </Button>
          </div>
        </form>
      ) : null}
    </Dialog>
  );
}
