import { endpoints } from "@/lib/http/endpoints";
import { otherMethods, taskCallRoute } from "@/lib/http/routes";
import { start } from "@/lib/tasks";

export const POST = taskCallRoute(endpoints.startTask, start);

export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods(endpoints.startTask);
