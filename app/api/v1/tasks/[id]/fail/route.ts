import { endpoints } from "@/lib/http/endpoints";
import { otherMethods, taskCallRoute } from "@/lib/http/routes";
import { failTask } from "@/lib/tasks";

export const POST = taskCallRoute(endpoints.failTask, failTask);

export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods(endpoints.failTask);
