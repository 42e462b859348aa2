// `npm run cli -- <command>`: users, agent tokens, tasks and queue settings from a shell,
// through the same lib/ functions the app uses. Bad input is one `error: …` line on
// stderr and a non-zero exit (2 for a usage mistake); never a stack trace. See docs/contract.md#command-line.
import { parseCommand, usage } from "./cli/commands";
import { CliError, describe } from "./cli/errors";

async function main(argv: string[]): Promise<number> {
  if (argv.includes("--help") || argv.includes("-h")) {
    console.log(usage);
    return 0;
  }
  const action = await parseCommand(argv);
  if (action.overHttp) {
    for (const line of await action(null as never)) console.log(line);
    return 0;
  }
  const { withDatabase } = await import("./cli/database");
  for (const line of await withDatabase(action)) console.log(line);
  return 0;
}

const code = await main(process.argv.slice(2)).catch((error: unknown) => {
  console.error(`error: ${describe(error)}`);
  return error instanceof CliError ? error.exitCode : 1;
});
process.exit(code);
