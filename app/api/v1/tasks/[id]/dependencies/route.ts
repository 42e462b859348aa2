import { endpoints } from "@/lib/http/endpoints";
import { otherMethods, taskCallRoute } from "@/lib/http/routes";
import { addDependencies } from "@/lib/tasks";

export const POST = taskCallRoute(endpoints.addDependencies, addDependencies);

export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods(endpoints.addDependencies);
