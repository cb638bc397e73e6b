/**
 * The player's feed against stand-in WebSockets: her key and the last note's id in the hello,
 * never in the URL; notes handed out as they come; a reconnect after a drop says hello after
 * the greatest note id received; a close the server chose (4401 key-revoked) ends the feed
 * with no reconnect.
 */

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { connectFeed, followNotes, type Note, PlayerFeed } from "../src/feed.js";
import { isProblem } from "../src/problems.js";
import { SocketClosed, type WebSocketLike } from "../src/socket.js";

const opened: FakeSocket[] = [];

class FakeSocket implements WebSocketLike {
  sent: Record<string, unknown>[] = [];
  onopen: ((event: unknown) => void) | null = null;
  onmessage: ((event: { data: unknown }) => void) | null = null;
  onclose: ((event: { code: number; reason: string }) => void) | null = null;
  onerror: ((event: unknown) => void) | null = null;

  constructor(readonly url: string) {
    opened.push(this);
    setImmediate(() => this.onopen?.({}));
  }

  send(data: string): void {
    this.sent.push(JSON.parse(data) as Record<string, unknown>);
    if (this.sent.length === 1) {
      setImmediate(() => this.push({ type: "welcome", handle: "ann" }));
    }
  }

  close(code = 1000, reason = ""): void {
    this.onclose?.({ code, reason });
  }

  push(message: Record<string, unknown>): void {
    this.onmessage?.({ data: JSON.stringify(message) });
  }
}

function note(version: number, kind: Note["kind"] = "your-turn"): Note {
  const id = `2026-12-06T09:00:00.000000Z/g1/${String(version).padStart(8, "0")}/3`;
  return { id, kind, game_id: "g1", version, at: "2026-12-06T09:00:00.000000Z", ruleset: "race35", seat: 0 };
}

async function until(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!condition() && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe("PlayerFeed", () => {
  test("hello with her key and after; notes once, in order; next() finds a kind", async () => {
    opened.length = 0;
    const feed = await connectFeed("http://tabula.test/", "tabula_pk_ann", { WebSocket: FakeSocket, after: null });
    const socket = opened[0]!;
    assert.equal(socket.url, "ws://tabula.test/me/socket");
    assert.deepEqual(socket.sent[0], { type: "hello", token: "tabula_pk_ann", after: null });
    assert.equal(feed.handle, "ann");
    socket.push({ type: "note", note: note(1, "game-started") });
    socket.push({ type: "note", note: note(3) });
    socket.push({ type: "note", note: note(7, "game-finished") });
    const seen: string[] = [];
    for await (const each of feed.notes()) {
      seen.push(`${each.kind}@${each.version}`);
      if (seen.length === 2) break;
    }
    assert.deepEqual(seen, ["game-started@1", "your-turn@3"]);
    assert.equal((await feed.next((n) => n.kind === "game-finished")).version, 7);
    feed.close();
  });

  test("a dropped feed says hello again after the last note received", async () => {
    opened.length = 0;
    const got: number[] = [];
    const feed = new PlayerFeed("ws://x/me/socket", "k", { WebSocket: FakeSocket, backoff: [1], onNote: (n) => got.push(n.version) });
    await feed.open();
    opened[0]!.push({ type: "note", note: note(5) }); // standing notes: not in id order
    opened[0]!.push({ type: "note", note: note(2) });
    opened[0]!.close(1006, "");
    await until(() => opened.length === 2 && opened[1]!.sent.length === 1);
    assert.deepEqual(opened[1]!.sent[0], { type: "hello", token: "k", after: note(5).id });
    await until(() => feed.handle !== undefined);
    opened[1]!.push({ type: "note", note: note(6) });
    assert.deepEqual(got, [5, 2, 6]);
    feed.close();
  });

  test("a close the server chose ends the feed: no reconnect, the reader is told", async () => {
    opened.length = 0;
    let closedFor: SocketClosed | undefined;
    const feed = await connectFeed("http://x", "k", { WebSocket: FakeSocket, onClosed: (c) => (closedFor = c) });
    const reading = feed.next();
    opened[0]!.close(4401, "key-revoked");
    await assert.rejects(reading, (error: unknown) => error instanceof SocketClosed && error.keyRevoked);
    assert.equal(closedFor?.code, 4401);
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(opened.length, 1);
  });
});

describe("followNotes", () => {
  test("the key in a header, notes as they come, reopened after the greatest id, a refusal thrown", async () => {
    const sent: { url: string; auth: string | null; last: string | null }[] = [];
    const sse = (...notes: Note[]) =>
      notes.map((n) => `id: ${n.id}\nevent: note\ndata: ${JSON.stringify(n)}\n\n`).join("") + ": keep-alive\n\n";
    const replies = [
      new Response(sse(note(4), note(2)), { status: 200, headers: { "Content-Type": "text/event-stream" } }),
      new Response(sse(note(6)), { status: 200, headers: { "Content-Type": "text/event-stream" } }),
      new Response(JSON.stringify({ type: "https://tabula.dev/problems/key-refused", title: "t", status: 401, detail: "d" }), {
        status: 401,
        headers: { "Content-Type": "application/problem+json" },
      }),
    ];
    const fetch = async (input: Request | string | URL, init?: RequestInit): Promise<Response> => {
      const headers = new Headers(init?.headers);
      sent.push({ url: String(input), auth: headers.get("authorization"), last: headers.get("last-event-id") });
      return replies.shift()!;
    };
    const got: number[] = [];
    const reading = (async () => {
      for await (const each of followNotes({ baseUrl: "http://tabula.test/", key: "k", fetch, retryDelayMs: 1 })) {
        got.push(each.version);
      }
    })();
    await assert.rejects(reading, (error: unknown) => isProblem(error, "key-refused"));
    assert.deepEqual(got, [4, 2, 6]);
    assert.deepEqual(sent, [
      { url: "http://tabula.test/me/stream", auth: "Bearer k", last: null },
      { url: "http://tabula.test/me/stream", auth: "Bearer k", last: note(4).id },
      { url: "http://tabula.test/me/stream", auth: "Bearer k", last: note(6).id },
    ]);
  });
});
