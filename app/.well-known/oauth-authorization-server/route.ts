import { issuer } from "@/lib/oauth/config";
import { authorizationServerMetadata, metadataResponse } from "@/lib/oauth/metadata";

// RFC 8414 authorization-server metadata.
export const GET = (request: Request) => metadataResponse(authorizationServerMetadata(issuer(request)));
