/**
 * Print a game's events as they happen, until it has finished; a dropped connection (a
 * server restart, a network cut) resumes where it stopped.
 *
 *     node build/examples/follow.js http://127.0.0.1:8000 GAME_ID [--token TOKEN] [--after N]
 *
 * The URL may be left out (TABULA_URL, else http://127.0.0.1:8000). Each event is a line
 * `<version> <type> by <who>`; each reconnection is a line on stderr. Exits 1 on a failure.
 */

import { parseArgs } from "node:util";
import { follow } from "tabula-client-ts/follow";

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { token: { type: "string" }, after: { type: "string", default: "0" } },
  });
  const [first, second] = positionals;
  const gameId = second ?? first;
  const baseUrl = (second === undefined ? undefined : first) ?? process.env.TABULA_URL ?? "http://127.0.0.1:8000";
  if (gameId === undefined) {
    throw new Error("usage: follow.js [URL] GAME_ID [--token TOKEN] [--after N]");
  }
  let count = 0;
  const events = follow({
    baseUrl,
    gameId,
    token: values.token,
    after: Number(values.after),
    retries: 10,
    onReconnect: (after, attempt, cause) =>
      console.error(`reconnecting after version ${after} (attempt ${attempt}): ${String(cause)}`),
  });
  for await (const event of events) {
    console.log(`${event.version} ${event.type} by ${event.by}`);
    count += 1;
  }
  console.log(`the game has finished: ${count} events`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? `failed: ${error.message}` : error);
  process.exit(1);
});
