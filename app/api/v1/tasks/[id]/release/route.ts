import { endpoints } from "@/lib/http/endpoints";
import { otherMethods, taskCallRoute } from "@/lib/http/routes";
import { release } from "@/lib/tasks";

export const POST = taskCallRoute(endpoints.releaseTask, release);

export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods(endpoints.releaseTask);
