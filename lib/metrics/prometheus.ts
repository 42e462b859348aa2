/** The Prometheus text exposition format (version 0.0.4), written out by hand: it is small. */
export const PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

export type Labels = Record<string, string>;

export interface Family {
  name: string;
  help: string;
  type: "counter" | "gauge" | "histogram";
  samples: { suffix?: string; labels?: Labels; value: number }[];
}

const escapeLabel = (value: string) => value.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/"/g, '\\"');
const escapeHelp = (value: string) => value.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");

function formatValue(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (value === Infinity) return "+Inf";
  if (value === -Infinity) return "-Inf";
  return String(value);
}

function formatLabels(labels: Labels | undefined): string {
  const entries = Object.entries(labels ?? {});
  if (entries.length === 0) return "";
  return `{${entries.map(([k, v]) => `${k}="${escapeLabel(v)}"`).join(",")}}`;
}

export function renderPrometheus(families: Family[]): string {
  const lines: string[] = [];
  for (const f of families) {
    lines.push(`# HELP ${f.name} ${escapeHelp(f.help)}`, `# TYPE ${f.name} ${f.type}`);
    for (const s of f.samples) lines.push(`${f.name}${s.suffix ?? ""}${formatLabels(s.labels)} ${formatValue(s.value)}`);
  }
  return lines.join("\n") + "\n";
}

/** A histogram's samples: cumulative buckets, +Inf, sum and count. */
export function histogramSamples(labels: Labels, bounds: number[], counts: number[], sum: number, count: number): Family["samples"] {
  let cumulative = 0;
  const samples: Family["samples"] = bounds.map((le, i) => {
    cumulative += counts[i] ?? 0;
    return { suffix: "_bucket", labels: { ...labels, le: String(le) }, value: cumulative };
  });
  samples.push({ suffix: "_bucket", labels: { ...labels, le: "+Inf" }, value: count });
  samples.push({ suffix: "_sum", labels, value: sum }, { suffix: "_count", labels, value: count });
  return samples;
}
