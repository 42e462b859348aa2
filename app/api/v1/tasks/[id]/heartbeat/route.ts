import { endpoints } from "@/lib/http/endpoints";
import { otherMethods, taskCallRoute } from "@/lib/http/routes";
import { renew } from "@/lib/tasks";

export const POST = taskCallRoute(endpoints.heartbeat, renew);

export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods(endpoints.heartbeat);
