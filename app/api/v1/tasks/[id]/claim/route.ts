import { endpoints } from "@/lib/http/endpoints";
import { taskCallRoute } from "@/lib/http/routes";
import { claim } from "@/lib/tasks";

export const POST = taskCallRoute(endpoints.claimTask, claim);
