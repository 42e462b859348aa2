import { endpoints } from "@/lib/http/endpoints";
import { otherMethods, taskCallRoute } from "@/lib/http/routes";
import { requeue } from "@/lib/tasks";

// Supervisor tokens only (the endpoint's roles): the inbox's decision, over the API.
export const POST = taskCallRoute(endpoints.requeueTask, requeue);

export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods(endpoints.requeueTask);
