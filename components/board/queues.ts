"use client";

import { useQuery } from "@tanstack/react-query";
import { listQueuesAction } from "@/app/actions/board";
import { queueKeys } from "@/components/task/api";
import { unwrap } from "@/components/task/mutations";

/** The queue names, from the server's render first; refreshed when an event names a new one. */
export function useQueues(initial: string[]): string[] {
  const query = useQuery({ queryKey: queueKeys, queryFn: () => unwrap(listQueuesAction({})), initialData: initial });
  return query.data;
}
