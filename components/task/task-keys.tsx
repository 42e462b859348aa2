"use client";

import { useRouter } from "next/navigation";
import { press, useShortcuts } from "@/components/ui/shortcuts";

export const TASK_KEYS: [string, string][] = [
  ["c", "Claim the task"],
  ["s", "Start the task"],
  ["e", "Edit the task"],
  ["r", "Write a comment"],
  ["b", "Back to the board"],
  ["?", "Show these keys"],
  ["Esc", "Close a dialog"],
];

/**
 * The task page's keys, by the board's mechanism (components/ui/shortcuts.tsx): each presses
 * the button the page already offers — Claim (or Claim again), Start, Edit — so a key can
 * do only what a click could, and nothing where the button is not shown.
 */
export function TaskKeys() {
  const router = useRouter();
  return useShortcuts(TASK_KEYS, (event) => {
    const actions = document.querySelector('section[aria-label="Actions"]');
    switch (event.key) {
      case "c":
        return press(actions, "Claim") || press(actions, "Claim again");
      case "s":
        return press(actions, "Start");
      case "e":
        return press(document.querySelector("main"), "Edit");
      case "r": {
        const box = document.querySelector<HTMLTextAreaElement>('form[aria-label="Add a comment"] textarea');
        box?.focus();
        return !!box;
      }
      case "b":
        router.push("/");
        return true;
      default:
        return false;
    }
  });
}
