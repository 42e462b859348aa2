import { endpoints } from "@/lib/http/endpoints";
import { taskCallRoute } from "@/lib/http/routes";
import { complete } from "@/lib/tasks";

export const POST = taskCallRoute(endpoints.completeTask, complete);
