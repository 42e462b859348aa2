import { endpoints } from "@/lib/http/endpoints";
import { otherMethods, taskCallRoute } from "@/lib/http/routes";
import { recordSideEffect } from "@/lib/tasks";

export const POST = taskCallRoute(endpoints.recordSideEffect, recordSideEffect);

export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods(endpoints.recordSideEffect);
