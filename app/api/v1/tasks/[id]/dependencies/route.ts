import { endpoints } from "@/lib/http/endpoints";
import { taskCallRoute } from "@/lib/http/routes";
import { addDependencies } from "@/lib/tasks";

export const POST = taskCallRoute(endpoints.addDependencies, addDependencies);
