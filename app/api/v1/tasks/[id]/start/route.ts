import { endpoints } from "@/lib/http/endpoints";
import { taskCallRoute } from "@/lib/http/routes";
import { start } from "@/lib/tasks";

export const POST = taskCallRoute(endpoints.startTask, start);
