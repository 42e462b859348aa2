// A strict reader of the Prometheus text format (0.0.4) for tests: it fails on any line a
// Prometheus server would refuse, and checks histograms are cumulative and end at +Inf.

export type Series = Map<string, number>;

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL = /\s*([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\[\\"n])*)"\s*(,|$)/y;

/** `name{a="1",b="2"}` with labels sorted, for lookups. */
export function seriesKey(name: string, labels: Record<string, string> = {}): string {
  const entries = Object.entries(labels).sort(([a], [b]) => a.localeCompare(b));
  return entries.length ? `${name}{${entries.map(([k, v]) => `${k}="${v}"`).join(",")}}` : name;
}

function parseLabels(text: string, line: string): Record<string, string> {
  const labels: Record<string, string> = {};
  LABEL.lastIndex = 0;
  while (LABEL.lastIndex < text.length) {
    const match = LABEL.exec(text);
    if (!match) throw new Error(`bad labels in: ${line}`);
    labels[match[1]!] = match[2]!.replace(/\\n/g, "\n").replace(/\\"/g, '"').replace(/\\\\/g, "\\");
    if (match[3] === "") break;
  }
  return labels;
}

export function parsePrometheus(text: string): { series: Series; types: Map<string, string> } {
  if (!text.endsWith("\n")) throw new Error("the exposition must end with a newline");
  const series: Series = new Map();
  const types = new Map<string, string>();
  for (const line of text.slice(0, -1).split("\n")) {
    if (line.startsWith("# HELP ")) continue;
    if (line.startsWith("# TYPE ")) {
      const [name, type, ...rest] = line.slice(7).split(" ");
      if (!NAME.test(name ?? "") || !["counter", "gauge", "histogram", "summary", "untyped"].includes(type ?? "") || rest.length) {
        throw new Error(`bad TYPE line: ${line}`);
      }
      if (types.has(name!)) throw new Error(`TYPE given twice: ${line}`);
      types.set(name!, type!);
      continue;
    }
    const match = SAMPLE.exec(line);
    if (!match) throw new Error(`not a sample line: ${JSON.stringify(line)}`);
    const [, name, labelText, raw] = match;
    const family = [...types.keys()].find((f) => name === f || (types.get(f) === "histogram" && /^(_bucket|_sum|_count)$/.test(name!.slice(f.length)) && name!.startsWith(f)));
    if (!family) throw new Error(`sample before its TYPE: ${line}`);
    const value = raw === "+Inf" ? Infinity : raw === "-Inf" ? -Infinity : Number(raw);
    if (Number.isNaN(value) && raw !== "NaN") throw new Error(`bad value: ${line}`);
    const key = seriesKey(name!, labelText ? parseLabels(labelText, line) : {});
    if (series.has(key)) throw new Error(`duplicate series: ${key}`);
    series.set(key, value);
  }
  checkHistograms(series, types);
  return { series, types };
}

function checkHistograms(series: Series, types: Map<string, string>): void {
  for (const [family, type] of types) {
    if (type !== "histogram") continue;
    const groups = new Map<string, { le: number; value: number }[]>();
    for (const [key, value] of series) {
      if (!key.startsWith(`${family}_bucket{`)) continue;
      const le = /le="([^"]+)"/.exec(key)![1]!;
      const rest = key.slice(`${family}_bucket`.length).replace(/,?le="[^"]+"/, "").replace("{,", "{");
      groups.set(rest, [...(groups.get(rest) ?? []), { le: le === "+Inf" ? Infinity : Number(le), value }]);
    }
    for (const [labels, buckets] of groups) {
      buckets.sort((a, b) => a.le - b.le);
      buckets.forEach((b, i) => {
        if (i > 0 && b.value < buckets[i - 1]!.value) throw new Error(`${family}${labels}: buckets are not cumulative`);
      });
      if (buckets.at(-1)?.le !== Infinity) throw new Error(`${family}${labels}: no +Inf bucket`);
      const count = series.get(`${family}_count${labels === "{}" ? "" : labels}`);
      if (count !== buckets.at(-1)!.value) throw new Error(`${family}${labels}: _count ${count} ≠ +Inf bucket ${buckets.at(-1)!.value}`);
    }
  }
}
