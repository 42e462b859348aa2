// `npm run db:migrate`: apply pending migrations to DATABASE_URL or the embedded database.
import { migrateDatabase } from "../db/migrate";
import { openProjectDatabase } from "../db/project-database";

const database = await openProjectDatabase((line) => console.log(line));
try {
  await migrateDatabase(database.url);
  console.log("migrations applied");
} catch (error) {
  console.error(`migration failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
} finally {
  await database.release();
}
