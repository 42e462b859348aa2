import { endpoints } from "@/lib/http/endpoints";
import { otherMethods } from "@/lib/http/routes";
import { handle } from "@/lib/http/handler";
import { buildOpenApiDocument } from "@/lib/http/openapi";

/** The OpenAPI 3.1 document: no auth, the same for every caller, so caches may keep it a minute. */
export const GET = handle(endpoints.openapi, async () =>
  Response.json(buildOpenApiDocument(), { headers: { "Cache-Control": "public, max-age=60" } }),
);

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods(endpoints.openapi);
