import { errorResponse } from "@/lib/http/errors";
import { withTransportSecurity } from "@/lib/http/transport";

// Anything under /api/v1 that no endpoint matches: the error envelope of docs/contract.md#errors, not an HTML page.
// Not an endpoint, so not in the OpenAPI document (lib/http/openapi.test.ts skips it).
const notFound = async (request: Request) =>
  withTransportSecurity(request, errorResponse({ code: "not_found", message: `No endpoint ${request.method} ${new URL(request.url).pathname}` }));

export { notFound as GET, notFound as POST, notFound as PUT, notFound as PATCH, notFound as DELETE };
