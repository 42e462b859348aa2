import { issuer } from "@/lib/oauth/config";
import { metadataResponse, protectedResourceMetadata } from "@/lib/oauth/metadata";

// RFC 9728 protected-resource metadata for /api/mcp (also at …/api/mcp, the path-suffixed form).
export const GET = (request: Request) => metadataResponse(protectedResourceMetadata(issuer(request)));
