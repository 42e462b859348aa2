import { endpoints } from "@/lib/http/endpoints";
import { otherMethods, taskCallRoute } from "@/lib/http/routes";
import { claim } from "@/lib/tasks";

export const POST = taskCallRoute(endpoints.claimTask, claim);

export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods(endpoints.claimTask);
