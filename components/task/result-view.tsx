import { jsonSegments, readResult } from "@/lib/results/read-result";
import { Markdown } from "./markdown-view";

// A submitted or completed result, readable and safe (lib/results/read-result.ts): the
// summary as the Markdown subset, its links as links, what else it holds as formatted JSON
// whose http(s) addresses are clickable. Elements only, never HTML.

const LINK = "text-blue-800 underline underline-offset-2 wrap-anywhere";

export function JsonView({ value, label, compact = false }: { value: unknown; label: string; compact?: boolean }) {
  return (
    <pre aria-label={label} className={`overflow-auto rounded bg-white p-2 text-xs whitespace-pre-wrap wrap-anywhere ${compact ? "max-h-32" : "max-h-64"}`}>
      {jsonSegments(value).map((segment, i) =>
        segment.kind === "link" ? (
          <a key={i} href={segment.href} rel="noopener noreferrer nofollow" target="_blank" className={LINK}>{segment.text}</a>
        ) : (
          segment.text
        ),
      )}
    </pre>
  );
}

export function ResultView({ result, compact = false, testId = "submission-result" }: { result: unknown; compact?: boolean; testId?: string }) {
  const read = readResult(result);
  return (
    <div className="space-y-2 text-sm" data-testid={testId}>
      {read.summary !== null ? <Markdown source={read.summary} className={compact ? "line-clamp-4" : ""} /> : null}
      {read.links.length > 0 ? (
        <ul aria-label="Links" className="list-disc space-y-0.5 pl-5">
          {read.links.map((link, i) => (
            <li key={i}>
              <a href={link.href} rel="noopener noreferrer nofollow" target="_blank" className={LINK}>{link.label}</a>
            </li>
          ))}
        </ul>
      ) : null}
      {"rest" in read ? <JsonView value={read.rest} label="Submitted data" compact={compact} /> : null}
    </div>
  );
}
