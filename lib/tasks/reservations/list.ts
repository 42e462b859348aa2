import { z } from "zod";
import { defineOperation } from "../core/engine";
import { ok } from "../core/types";
import { EVERYONE } from "../core/standing";
import { listHeldReservations } from "./held";

/** GET /reservations: what is held now and by whom (anyone on the board may see it, as they see the holders). */
export const listReservations = defineOperation({
  name: "listReservations",
  who: EVERYONE,
  input: z.strictObject({}),
  async run(tx, _input, { clock }) {
    return ok(await listHeldReservations(tx, clock));
  },
});
