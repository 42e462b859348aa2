import { endpoints } from "@/lib/http/endpoints";
import { taskCallRoute } from "@/lib/http/routes";
import { recordSideEffect } from "@/lib/tasks";

export const POST = taskCallRoute(endpoints.recordSideEffect, recordSideEffect);
