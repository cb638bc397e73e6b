/**
 * The game socket's session against stand-in WebSockets: hello with the last version seen,
 * each event once, answers matched by ref, refusals as ProblemError, a reconnect after a drop
 * from where it left off, no reconnect after a close the server chose, and nothing lost when
 * the first events come in the same read as the welcome.
 */

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { GameEvent } from "../src/client.js";
import { ProblemError } from "../src/problems.js";
import { connect, GameSocket, SocketClosed, type WebSocketLike } from "../src/socket.js";

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
  }

  close(code = 1000, reason = ""): void {
    this.onclose?.({ code, reason });
  }

  push(message: Record<string, unknown>): void {
    this.onmessage?.({ data: JSON.stringify(message) });
  }
}

function event(version: number): GameEvent {
  return { game_id: "g", version, type: "MovePlayed", data: {}, by: 0, at: "", prev_hash: "", hash: "" } as unknown as GameEvent;
}

async function tick(): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
}

async function until(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!condition() && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe("GameSocket", () => {
  test("hello, events once in order, a play answered by ref, a refusal as a problem", async () => {
    opened.length = 0;
    const live = new GameSocket("ws://x/games/g/socket", "t", { WebSocket: FakeSocket, after: 2 });
    const seen: number[] = [];
    live.onEvents = (events) => seen.push(...events.map((e) => e.version));
    const welcoming = live.open();
    await tick();
    const socket = opened[0]!;
    assert.deepEqual(socket.sent[0], { type: "hello", token: "t", after: 2 });
    socket.push({ type: "welcome", role: "seat", seat: 0, version: 4 });
    assert.equal((await welcoming).role, "seat");
    socket.push({ type: "events", events: [event(2), event(3), event(4)] });
    const playing = live.play("draw", { expectedVersion: 4 });
    assert.deepEqual(socket.sent[1], { type: "play", ref: "1", move: "draw", expected_version: 4 });
    socket.push({ type: "played", ref: "1", version: 6, events: [event(5), event(6)], legal_moves: { version: 6, moves: [] } });
    assert.equal((await playing).version, 6);
    assert.deepEqual(seen, [3, 4, 5, 6]);
    const refused = live.play("draw");
    const problem = { type: "https://tabula.dev/problems/not-your-turn", title: "Not your turn", status: 409, detail: "Bob's" };
    socket.push({ type: "refused", ref: "2", problem });
    await assert.rejects(refused, (error: unknown) => error instanceof ProblemError && error.slug === "not-your-turn");
  });

  test("a dropped socket reopens from the last version; a write it cut off is rejected", async () => {
    opened.length = 0;
    const live = new GameSocket("ws://x/games/g/socket", null, { WebSocket: FakeSocket, backoff: [0, 0] });
    const welcoming = live.open();
    await tick();
    opened[0]!.push({ type: "welcome", role: "spectator", seat: null, version: 1 });
    await welcoming;
    opened[0]!.push({ type: "events", events: [event(1)] });
    const cut = live.play("draw");
    opened[0]!.close(1006, "");
    await assert.rejects(cut, SocketClosed);
    await until(() => opened.length === 2 && opened[1]!.sent.length > 0);
    assert.equal(opened.length, 2);
    assert.deepEqual(opened[1]!.sent[0], { type: "hello", token: null, after: 1 });
  });

  test("a close the server chose is not retried", async () => {
    opened.length = 0;
    const live = new GameSocket("ws://x/games/g/socket", "made-up", { WebSocket: FakeSocket, backoff: [0] });
    let closed: SocketClosed | undefined;
    live.onClosed = (error) => {
      closed = error;
    };
    const welcoming = live.open();
    await tick();
    opened[0]!.close(4401, "not a token of this game");
    await assert.rejects(welcoming, SocketClosed);
    await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal(opened.length, 1);
    assert.equal(closed?.code, 4401);
  });

  test("events in the welcome's read are kept for the handler set after connect", async () => {
    opened.length = 0;
    const connecting = connect("http://x", "g", null, { WebSocket: FakeSocket });
    await tick();
    const socket = opened[0]!;
    socket.push({ type: "welcome", role: "spectator", seat: null, version: 2 }); // one read:
    socket.push({ type: "events", events: [event(1), event(2)] }); // no await between them
    const live = await connecting;
    assert.equal(live.version, 2);
    const seen: number[] = [];
    live.onEvents = (events) => seen.push(...events.map((e) => e.version));
    assert.deepEqual(seen, [1, 2]);
    socket.push({ type: "events", events: [event(3)] });
    assert.deepEqual(seen, [1, 2, 3]);
  });

  test("handlers given to connect get the events of the welcome's read and a close", async () => {
    opened.length = 0;
    const seen: number[] = [];
    let closed: SocketClosed | undefined;
    const connecting = connect("http://x", "g", null, {
      WebSocket: FakeSocket,
      onEvents: (events) => seen.push(...events.map((e) => e.version)),
      onClosed: (error) => {
        closed = error;
      },
    });
    await tick();
    const socket = opened[0]!;
    socket.push({ type: "welcome", role: "spectator", seat: null, version: 1 });
    socket.push({ type: "events", events: [event(1)] });
    socket.close(4409, "too slow a reader");
    await connecting;
    assert.deepEqual(seen, [1]);
    assert.equal(closed?.code, 4409);
  });

  test("a close for good before onClosed is set is handed to it when set", async () => {
    opened.length = 0;
    const connecting = connect("http://x", "g", null, { WebSocket: FakeSocket });
    await tick();
    opened[0]!.push({ type: "welcome", role: "spectator", seat: null, version: 1 });
    opened[0]!.close(4409, "too slow a reader");
    const live = await connecting;
    let closed: SocketClosed | undefined;
    live.onClosed = (error) => {
      closed = error;
    };
    assert.equal(closed?.code, 4409);
  });

  test("onPresence asks for presence in the hello and is handed each presence message", async () => {
    opened.length = 0;
    const told: boolean[][] = [];
    const connecting = connect("http://x", "g", "t", {
      WebSocket: FakeSocket,
      onPresence: (seats) => told.push(seats.map((s) => s.present)),
    });
    await tick();
    assert.deepEqual(opened[0]!.sent[0], { type: "hello", token: "t", after: 0, presence: true });
    opened[0]!.push({ type: "welcome", role: "seat", seat: 0, version: 1 });
    await connecting;
    opened[0]!.push({ type: "presence", seats: [{ seat: 0, present: true }, { seat: 1, present: false }] });
    assert.deepEqual(told, [[true, false]]);
    const plain = connect("http://x", "g", null, { WebSocket: FakeSocket });
    await tick();
    assert.deepEqual(opened[1]!.sent[0], { type: "hello", token: null, after: 0 }); // none asked
    opened[1]!.push({ type: "welcome", role: "spectator", seat: null, version: 1 });
    await plain;
  });
});
