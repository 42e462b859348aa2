import { endpoints } from "@/lib/http/endpoints";
import { taskCallRoute } from "@/lib/http/routes";
import { failTask } from "@/lib/tasks";

export const POST = taskCallRoute(endpoints.failTask, failTask);
