import { expect, test } from "vitest";
import nextConfig from "@/next.config";

// `next build` type-checks what it builds. With ignoreBuildErrors a type error — a guard
// whose types no longer line up, a route answering the wrong shape — ships to production
// silently whenever the build is run without `npm test` first.
test("the production build refuses type errors (typescript.ignoreBuildErrors is off)", () => {
  expect(nextConfig.typescript?.ignoreBuildErrors ?? false).toBe(false);
});
