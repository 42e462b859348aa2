"use server";

import { operationAction } from "@/lib/auth/action";
import { changeOwnPassword } from "@/lib/auth/password-reset";

// The signed-in person's own account (lib/auth/password-reset.ts): staff and supervisors alike.
export const changeOwnPasswordAction = operationAction("staff", changeOwnPassword);
