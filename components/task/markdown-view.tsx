import { Fragment, type ReactNode } from "react";
import { parseMarkdown, type Inline } from "./markdown";

function inline(runs: Inline[]): ReactNode {
  return runs.map((run, i) => {
    switch (run.kind) {
      case "text":
        return <Fragment key={i}>{run.text}</Fragment>;
      case "break":
        return <br key={i} />;
      case "code":
        return <code key={i} className="rounded bg-slate-100 px-1 text-[0.9em]">{run.text}</code>;
      case "strong":
        return <strong key={i}>{inline(run.children)}</strong>;
      case "em":
        return <em key={i}>{inline(run.children)}</em>;
      case "link":
        return (
          <a key={i} href={run.href} rel="noopener noreferrer nofollow" target="_blank" className="text-blue-700 underline wrap-anywhere">
            {inline(run.children)}
          </a>
        );
    }
  });
}

/** A description as Markdown (components/task/markdown.ts): elements only, never HTML. */
export function Markdown({ source, className = "" }: { source: string; className?: string }) {
  return (
    <div className={`space-y-2 wrap-anywhere ${className}`} data-testid="markdown">
      {parseMarkdown(source).map((block, i) => {
        switch (block.kind) {
          case "paragraph":
            return <p key={i}>{inline(block.children)}</p>;
          case "heading":
            return <p key={i} className="font-semibold">{inline(block.children)}</p>;
          case "code":
            return <pre key={i} className="overflow-x-auto rounded bg-slate-100 p-2 text-xs">{block.text}</pre>;
          case "list": {
            const List = block.ordered ? "ol" : "ul";
            return (
              <List key={i} className={`${block.ordered ? "list-decimal" : "list-disc"} space-y-0.5 pl-5`}>
                {block.items.map((item, j) => <li key={j}>{inline(item)}</li>)}
              </List>
            );
          }
        }
      })}
    </div>
  );
}
