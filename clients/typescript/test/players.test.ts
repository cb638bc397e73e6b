/**
 * The players' helpers against a stand-in `fetch`: each sends its method, path and body with
 * the key in the Authorization header only, unwraps its reply, and throws the problem it was
 * refused with; `retire` takes a 204 with no body; a socket closed 4401 `key-revoked` says so.
 * The real service is exercised by examples/player.ts (tests/clients/test_players_typescript.py).
 */

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { tabula } from "../src/client.js";
import { me, mintKey, playerRecord, playerSeat, register, retire, rotateKey } from "../src/players.js";
import { isProblem } from "../src/problems.js";
import { SocketClosed } from "../src/socket.js";

const KEY = "tabula_pk_0123456789abcdef01234567_c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXNlY3I";

interface Sent {
  method: string;
  url: string;
  auth: string | null;
  body: string;
}

/** A client whose requests are answered, in turn, by `replies`; what it sent goes in `sent`. */
function standIn(token: string | undefined, ...replies: Response[]) {
  const sent: Sent[] = [];
  const fetch = async (input: Request | string | URL): Promise<Response> => {
    const request = input instanceof Request ? input : new Request(input);
    const body = await request.text();
    sent.push({ method: request.method, url: request.url, auth: request.headers.get("authorization"), body });
    const reply = replies.shift();
    assert.ok(reply, `no reply left for ${request.method} ${request.url}`);
    return reply;
  };
  return { api: tabula({ baseUrl: "http://tabula.test/", token, fetch }), sent };
}

function json(status: number, body: unknown, type = "application/json"): Response {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": type } });
}

const refused = (status: number, slug: string) =>
  json(status, { type: `https://tabula.dev/problems/${slug}`, title: slug, status, detail: slug }, "application/problem+json");

describe("players' helpers", () => {
  test("register without a key, then me, rotateKey and playerRecord with hers", async () => {
    const lobby = standIn(undefined, json(201, { handle: "ann", key: KEY }));
    assert.deepEqual(await register(lobby.api, "ann"), { handle: "ann", key: KEY });
    assert.deepEqual(lobby.sent, [{ method: "POST", url: "http://tabula.test/players", auth: null, body: '{"handle":"ann"}' }]);

    const record = { handle: "ann", events: [], format: "tabula-player-record", format_version: 1 };
    const ann = standIn(
      KEY,
      json(200, { handle: "ann", ratings: [], games: [], tournaments: [], invitations: [] }),
      json(200, { key: "tabula_pk_new" }),
      json(200, record),
    );
    assert.equal((await me(ann.api)).handle, "ann");
    assert.equal((await rotateKey(ann.api)).key, "tabula_pk_new");
    assert.equal((await playerRecord(ann.api, "ann")).format, "tabula-player-record");
    assert.deepEqual(
      ann.sent.map((s) => [s.method, s.url, s.body]),
      [
        ["GET", "http://tabula.test/me", ""],
        ["POST", "http://tabula.test/me/keys", "{}"],
        ["GET", "http://tabula.test/players/ann/record", ""],
      ],
    );
    for (const sent of ann.sent) {
      assert.equal(sent.auth, `Bearer ${KEY}`);
      assert.ok(!sent.url.includes(KEY) && !sent.body.includes(KEY));
    }
  });

  test("an app's key mints a key for its player, the handle's colon escaped in the path", async () => {
    const app = standIn("tabula_ak_ludoclub_x", json(200, { key: KEY }));
    assert.equal((await mintKey(app.api, "ludoclub:8812")).key, KEY);
    assert.equal(app.sent[0]!.url, "http://tabula.test/players/ludoclub%3A8812/keys");
    assert.equal(app.sent[0]!.auth, "Bearer tabula_ak_ludoclub_x");
  });

  test("retire takes a 204 with no body; a refused key is a ProblemError", async () => {
    const ann = standIn(KEY, new Response(null, { status: 204 }), refused(401, "key-refused"));
    assert.equal(await retire(ann.api), undefined);
    assert.deepEqual(ann.sent.map((s) => `${s.method} ${s.url}`), ["DELETE http://tabula.test/me"]);
    await assert.rejects(retire(ann.api), (error: unknown) => isProblem(error, "key-refused") && error.status === 401);
  });

  test("a refusal of each call is thrown as its problem", async () => {
    const lobby = standIn(undefined, refused(409, "handle-taken"), refused(422, "bad-handle"), refused(403, "forbidden"));
    await assert.rejects(register(lobby.api, "ann"), (error: unknown) => isProblem(error, "handle-taken"));
    await assert.rejects(register(lobby.api, "admin"), (error: unknown) => isProblem(error, "bad-handle"));
    await assert.rejects(mintKey(lobby.api, "ann"), (error: unknown) => isProblem(error, "forbidden"));
  });

  test("a player's seat names her handle only", () => {
    assert.deepEqual(playerSeat("ludoclub:8812"), { player: "ludoclub:8812" });
  });
});

describe("SocketClosed", () => {
  test("keyRevoked: a 4401 close whose reason is key-revoked, and nothing else", () => {
    assert.equal(new SocketClosed(4401, "key-revoked").keyRevoked, true);
    assert.equal(new SocketClosed(4401, "the key is refused").keyRevoked, false);
    assert.equal(new SocketClosed(1006, "key-revoked").keyRevoked, false);
  });
});
