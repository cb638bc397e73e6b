/**
 * The manual's first game from TypeScript (docs/getting-started/typescript.md shows this file):
 * create a race35 game for Ann and Bob, play each pending seat's first legal move with its
 * own token until the game is over, and print the winner.
 *
 *     npm run build && node build/examples/first-game.js http://127.0.0.1:8000
 */

import { tabula } from "tabula-client-ts/client";
import { ok } from "tabula-client-ts/problems";

const baseUrl = process.argv[2] ?? "http://127.0.0.1:8000";
const api = tabula({ baseUrl });

// Create the game: the reply carries one token per seat (and the referee's), shown only here.
const game = await ok(
  api.POST("/games", {
    body: { ruleset: "race35", seats: [{ name: "Ann" }, { name: "Bob" }] },
  }),
);
// A seat of a registered player has no token (null): her own key plays it.
const seats = game.tokens.seats.map((token) => tabula({ baseUrl, token }));
const path = { game_id: game.id };
console.log(`game ${game.id}, seed commitment ${game.seed_commitment}`);

// Play: whoever is pending asks for its legal moves and plays the first one.
let view = await ok(api.GET("/games/{game_id}", { params: { path } }));
while (view.status !== "finished") {
  const seat = seats[view.to_act[0]!.seat]!;
  const legal = await ok(seat.GET("/games/{game_id}/legal-moves", { params: { path } }));
  const move = legal.moves[0]!;
  const played = await ok(
    seat.POST("/games/{game_id}/moves", {
      params: { path },
      body: { move: move.id, expected_version: legal.version },
    }),
  );
  console.log(`version ${played.version}: seat ${move.seat} played ${move.id}`);
  view = played.state ?? (await ok(api.GET("/games/{game_id}", { params: { path } })));
}
const winners = view.winners.map((seat) => view.seats[seat]!.name);
console.log(`finished at version ${view.version}; winners: ${winners.join(", ")}`);
