/**
 * The meeting place's helpers against a stand-in `fetch`: each sends its method, path, query
 * and body, with the credential in the Authorization header only, and unwraps its reply or
 * throws the problem it was refused with; the lobby's pages are followed by their `next`.
 * The real service is exercised by examples/seeking-bot.ts (tests/clients/test_meeting_typescript.py).
 */

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { tabula } from "../src/client.js";
import {
  cancel,
  cancelSeek,
  createTable,
  decline,
  inviteSeat,
  join,
  leave,
  lobby,
  lobbyTables,
  nextCursor,
  openSeat,
  postSeek,
  rematch,
  seek,
  start,
  waitForMatch,
} from "../src/meeting.js";
import { isProblem } from "../src/problems.js";

interface Sent {
  method: string;
  url: string;
  auth: string | null;
  idempotency: string | null;
  body: string;
}

function standIn(token: string | undefined, ...replies: Response[]) {
  const sent: Sent[] = [];
  const fetch = async (input: Request | string | URL): Promise<Response> => {
    const request = input instanceof Request ? input : new Request(input);
    sent.push({
      method: request.method,
      url: request.url,
      auth: request.headers.get("authorization"),
      idempotency: request.headers.get("idempotency-key"),
      body: await request.text(),
    });
    const reply = replies.shift();
    assert.ok(reply, `no reply left for ${request.method} ${request.url}`);
    return reply;
  };
  return { api: tabula({ baseUrl: "http://tabula.test", token, fetch }), sent };
}

function json(status: number, body: unknown, type = "application/json"): Response {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": type } });
}

const refused = (status: number, slug: string) =>
  json(status, { type: `https://tabula.dev/problems/${slug}`, title: slug, status, detail: slug }, "application/problem+json");

const PLAYED = { events: [], legal_moves: [], version: 3 };
const TABLE = { id: "g1", ruleset: "ludo", players: 2, seats: [], options: {}, rated: false, created_at: "2026-01-01T00:00:00Z" };

describe("tables", () => {
  test("createTable sends open and invited seats with the settings", async () => {
    const host = standIn("tabula_pk_ann", json(201, { id: "g1", tokens: { referee: "r", seats: [null, null, null] } }));
    await createTable(host.api, "ludo", [{ player: "ann" }, openSeat(), inviteSeat("bob")], { unlisted: true });
    assert.equal(host.sent[0]!.url, "http://tabula.test/games");
    assert.deepEqual(JSON.parse(host.sent[0]!.body), {
      ruleset: "ludo",
      seats: [{ player: "ann" }, { open: true }, { invite: "bob" }],
      unlisted: true,
    });
  });

  test("join as a guest with a name, or a chosen seat with a key and an idempotency key", async () => {
    const guest = standIn(undefined, json(200, { seat: 1, token: "seat-token", version: 2 }));
    assert.deepEqual(await join(guest.api, "g/1", { name: "Gus" }), { seat: 1, token: "seat-token", version: 2 });
    assert.deepEqual(guest.sent[0], {
      method: "POST",
      url: "http://tabula.test/games/g%2F1/join",
      auth: null,
      idempotency: null,
      body: '{"name":"Gus"}',
    });
    const ann = standIn("tabula_pk_ann", json(200, { seat: 2, token: null, version: 3 }));
    assert.equal((await join(ann.api, "g1", { seat: 2, idempotencyKey: "k1" })).token, null);
    assert.equal(ann.sent[0]!.body, '{"seat":2}');
    assert.equal(ann.sent[0]!.auth, "Bearer tabula_pk_ann");
    assert.equal(ann.sent[0]!.idempotency, "k1");
  });

  test("leave, decline, start with bots and cancel post to their routes", async () => {
    const caller = standIn("t", ...[1, 2, 3, 4, 5].map(() => json(200, PLAYED)));
    await leave(caller.api, "g1");
    await decline(caller.api, "g1");
    await start(caller.api, "g1", "greedy");
    await start(caller.api, "g1");
    await cancel(caller.api, "g1");
    assert.deepEqual(
      caller.sent.map((s) => [s.method, s.url.replace("http://tabula.test", ""), s.body]),
      [
        ["POST", "/games/g1/leave", "{}"],
        ["POST", "/games/g1/decline", "{}"],
        ["POST", "/games/g1/start", '{"bots":"greedy"}'],
        ["POST", "/games/g1/start", "{}"],
        ["POST", "/games/g1/cancel", "{}"],
      ],
    );
  });

  test("a refusal is thrown as its problem", async () => {
    const guest = standIn(undefined, refused(403, "forbidden"), refused(409, "seat-taken"));
    await assert.rejects(join(guest.api, "g1", { seat: 2, name: "Eve" }), (error: unknown) => isProblem(error, "forbidden"));
    await assert.rejects(join(guest.api, "g1", { name: "Eve" }), (error: unknown) => error instanceof Error && isProblem(error) && error.status === 409);
  });
});

describe("rematch", () => {
  test("posts to the finished game's rematch with the seat's credential; a refusal is its problem", async () => {
    const gus = standIn("seat-token", json(201, { id: "g2", seat: 0, token: "new-token" }), refused(409, "game-not-finished"));
    assert.deepEqual(await rematch(gus.api, "g1", "k1"), { id: "g2", seat: 0, token: "new-token" });
    assert.deepEqual(gus.sent[0], {
      method: "POST",
      url: "http://tabula.test/games/g1/rematch",
      auth: "Bearer seat-token",
      idempotency: "k1",
      body: "{}",
    });
    await assert.rejects(rematch(gus.api, "g1"), (error: unknown) => isProblem(error, "game-not-finished"));
  });
});

describe("lobby", () => {
  test("filters go in the query; lobbyTables follows next to the last page", async () => {
    const next = "/lobby?ruleset=ludo&limit=1&cursor=abc";
    const anyone = standIn(
      undefined,
      json(200, { tables: [TABLE], next }),
      json(200, { tables: [{ ...TABLE, id: "g2" }], next: null }),
      json(200, { tables: [], next: null }),
    );
    const ids: string[] = [];
    for await (const table of lobbyTables(anyone.api, { ruleset: "ludo", limit: 1 })) {
      ids.push(table.id);
    }
    assert.deepEqual(ids, ["g1", "g2"]);
    assert.deepEqual(
      anyone.sent.map((s) => s.url),
      ["http://tabula.test/lobby?ruleset=ludo&limit=1", "http://tabula.test/lobby?ruleset=ludo&limit=1&cursor=abc"],
    );
    await lobby(anyone.api, { players: 4, rated: true });
    assert.equal(anyone.sent[2]!.url, "http://tabula.test/lobby?players=4&rated=true");
    assert.equal(nextCursor({ next }), "abc");
    assert.equal(nextCursor({ next: null }), undefined);
  });
});

describe("seeks", () => {
  test("post, read, wait for the match and cancel", async () => {
    const waiting = { id: "s1", ruleset: "race35", players: 2, rated: false, status: "waiting", game_id: null, seat: null, expires_at: "x" };
    const matched = { ...waiting, status: "matched", game_id: "g9", seat: 1, expires_at: null };
    const guest = standIn(
      undefined,
      json(201, { id: "s1", secret: "secret" }),
      json(200, waiting),
      json(200, waiting),
      json(200, matched),
      json(200, { ...matched, status: "cancelled" }),
    );
    assert.deepEqual(await postSeek(guest.api, { ruleset: "race35", players: 2, name: "Gus" }), { id: "s1", secret: "secret" });
    assert.deepEqual(JSON.parse(guest.sent[0]!.body), { options: {}, ruleset: "race35", players: 2, name: "Gus" });
    assert.equal((await seek(guest.api, "s1")).status, "waiting");
    const found = await waitForMatch(guest.api, "s1", { intervalMs: 1 });
    assert.deepEqual([found.status, found.game_id, found.seat], ["matched", "g9", 1]);
    assert.equal((await cancelSeek(guest.api, "s1")).status, "cancelled");
    assert.deepEqual(
      guest.sent.map((s) => `${s.method} ${s.url.replace("http://tabula.test", "")}`),
      ["POST /seeks", "GET /seeks/s1", "GET /seeks/s1", "GET /seeks/s1", "DELETE /seeks/s1"],
    );
  });
});
