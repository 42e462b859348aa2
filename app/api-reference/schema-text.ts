// Plain-words renderings of the JSON Schemas in the OpenAPI document, for the reference page.

export type Schema = { readonly [keyword: string]: unknown };

export interface FieldRow {
  name: string;
  type: string;
  required: boolean;
  limits: string;
}

const asSchema = (value: unknown): Schema => (value && typeof value === "object" ? (value as Schema) : {});
const refName = (schema: Schema) => (typeof schema.$ref === "string" ? schema.$ref.split("/").at(-1)! : undefined);

/** A short type name: `string`, `integer`, `Task`, `Task[]`, `"me"`, `string or null`. */
export function typeOf(schema: Schema): string {
  const name = refName(schema);
  if (name) return name === "JsonValue" ? "any JSON" : name;
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => JSON.stringify(v)).join(" | ");
  if (Array.isArray(schema.anyOf)) return schema.anyOf.map((s) => typeOf(asSchema(s))).join(" or ");
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : schema.type ? [schema.type as string] : [];
  const named = types.map((type) => {
    if (type === "array") return `${typeOf(asSchema(schema.items))}[]`;
    if (type === "string" && schema.format === "date-time") return "date-time (ISO 8601)";
    if (type === "object" && !schema.properties) return "JSON object";
    return type;
  });
  return named.length ? named.join(" or ") : "any JSON";
}

/** Bounds a client must respect: lengths, ranges, patterns. */
export function limitsOf(schema: Schema): string {
  const parts: string[] = [];
  const range = (min: unknown, max: unknown, unit: string) => {
    if (typeof min === "number" && typeof max === "number") parts.push(`${min} to ${max}${unit}`);
    else if (typeof min === "number" && min > 0) parts.push(`at least ${min}${unit}`);
    else if (typeof max === "number") parts.push(`at most ${max}${unit}`);
  };
  range(schema.minLength, schema.maxLength, " characters");
  if (!(Math.abs(Number(schema.maximum)) >= Number.MAX_SAFE_INTEGER)) range(schema.minimum, schema.maximum, "");
  range(schema.minItems, schema.maxItems, " items");
  if (typeof schema.pattern === "string" && schema.format !== "date-time") parts.push(`matches ${schema.pattern}`);
  return parts.join("; ");
}

/** One row per property of an object schema. */
export function fieldsOf(schema: Schema): FieldRow[] {
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  return Object.entries(asSchema(schema.properties)).map(([name, value]) => {
    const field = asSchema(value);
    return { name, type: typeOf(field), required: required.has(name), limits: limitsOf(field) };
  });
}

/** A response body in one line: `{ task: Task }`, `{ tasks: Task[], nextCursor: string or null }`. */
export function bodyOf(schema: Schema | undefined): string {
  if (!schema) return "no body";
  if (schema.properties && typeof schema.properties === "object") {
    const fields = fieldsOf(schema).map((f) => `${f.name}${f.required ? "" : "?"}: ${f.type}`);
    return `{ ${fields.join(", ")}${schema.additionalProperties === false ? "" : ", …"} }`;
  }
  return typeOf(schema);
}
