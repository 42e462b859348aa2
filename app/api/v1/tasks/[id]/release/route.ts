import { endpoints } from "@/lib/http/endpoints";
import { taskCallRoute } from "@/lib/http/routes";
import { release } from "@/lib/tasks";

export const POST = taskCallRoute(endpoints.releaseTask, release);
