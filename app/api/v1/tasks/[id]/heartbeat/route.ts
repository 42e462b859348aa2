import { endpoints } from "@/lib/http/endpoints";
import { taskCallRoute } from "@/lib/http/routes";
import { renew } from "@/lib/tasks";

export const POST = taskCallRoute(endpoints.heartbeat, renew);
