/** The people every e2e run signs in as (made by global-setup.ts). */
export const PEOPLE = [
  { email: "amal@example.com", name: "Amal", role: "staff", password: "amal-password-1" },
  { email: "bilal@example.com", name: "Bilal", role: "staff", password: "bilal-password-1" },
  { email: "sara@example.com", name: "Sara", role: "supervisor", password: "sara-password-1" },
] as const;

export type Person = (typeof PEOPLE)[number];
export const [AMAL, BILAL, SARA] = PEOPLE;
