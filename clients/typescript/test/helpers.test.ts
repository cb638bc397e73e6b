/**
 * The hand-written helpers against a local stand-in server (node:http on loopback): SSE
 * parsing, resuming a dropped stream with Last-Event-ID, and problem responses as
 * ProblemError. The real service is exercised by examples/play.ts (tests/clients/test_typescript.py).
 */

import assert from "node:assert/strict";
import { type IncomingMessage, type ServerResponse, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";
import type { GameEvent } from "../src/client.js";
import { follow, messages, type SseMessage } from "../src/follow.js";
import { ProblemError, isProblem, ok } from "../src/problems.js";

const encoder = new TextEncoder();

async function parse(...chunks: string[]): Promise<SseMessage[]> {
  async function* bytes(): AsyncGenerator<Uint8Array> {
    for (const chunk of chunks) {
      yield encoder.encode(chunk);
    }
  }
  const all: SseMessage[] = [];
  for await (const message of messages(bytes())) {
    all.push(message);
  }
  return all;
}

describe("SSE parsing", () => {
  test("fields, comments, multi-line data and every line end, split anywhere", async () => {
    const stream = ": keep-alive\r\nid: 1\r\nevent: GameCreated\r\ndata: {\"a\":\r\ndata:1}\r\n\r\nid:2\rdata: x\r\r";
    for (let cut = 0; cut <= stream.length; cut++) {
      const got = await parse(stream.slice(0, cut), stream.slice(cut));
      assert.deepEqual(got, [
        { data: '{"a":\n1}', event: "GameCreated", id: "1", retry: undefined },
        { data: "x", event: "message", id: "2", retry: undefined },
      ], `cut at ${cut}`);
    }
  });

  test("a message without data is not dispatched, the last id and retry stay", async () => {
    const got = await parse("id: 7\nretry: 1500\n\nevent: lonely\n\ndata: y\n\n");
    assert.deepEqual(got, [{ data: "y", event: "message", id: "7", retry: 1500 }]);
  });

  test("a message the stream never finished is discarded", async () => {
    assert.deepEqual(await parse("data: whole\n\ndata: half"), [
      { data: "whole", event: "message", id: undefined, retry: undefined },
    ]);
  });
});

/** A stand-in for the service: each request is answered by the next handler in `script`. */
class Script {
  readonly seen: Array<{ url: string; lastEventId: string | undefined; auth: string | undefined }> = [];
  private readonly server = createServer((request, response) => this.answer(request, response));
  private handlers: Array<(response: ServerResponse) => void> = [];

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  play(...handlers: Array<(response: ServerResponse) => void>): void {
    this.seen.length = 0;
    this.handlers = handlers;
  }

  private answer(request: IncomingMessage, response: ServerResponse): void {
    const header = (name: string): string | undefined => {
      const value = request.headers[name];
      return Array.isArray(value) ? value[0] : value;
    };
    this.seen.push({ url: request.url ?? "", lastEventId: header("last-event-id"), auth: header("authorization") });
    const next = this.handlers.shift();
    if (next === undefined) {
      problem(response, 500, "internal-error", "the script has no more answers");
    } else {
      next(response);
    }
  }
}

function event(version: number, type = "MovePlayed"): string {
  return `id: ${version}\nevent: ${type}\ndata: ${JSON.stringify({ version, type })}\n\n`;
}

function stream(body: string, then: "end" | "drop") {
  return (response: ServerResponse): void => {
    response.writeHead(200, { "Content-Type": "text/event-stream" });
    response.write(body, () => {
      if (then === "end") {
        response.end();
      } else {
        setTimeout(() => response.socket?.destroy(), 20); // the connection drops mid-stream
      }
    });
  };
}

function problem(response: ServerResponse, status: number, slug: string, detail: string, extra = {}) {
  response.writeHead(status, { "Content-Type": "application/problem+json", "Retry-After": "0" });
  response.end(JSON.stringify({ type: `https://tabula.dev/problems/${slug}`, title: slug, status, detail, ...extra }));
}

async function collect(events: AsyncIterable<GameEvent>): Promise<number[]> {
  const versions: number[] = [];
  for await (const e of events) {
    versions.push(e.version);
  }
  return versions;
}

describe("follow", () => {
  const script = new Script();
  let baseUrl = "";
  before(async () => {
    baseUrl = await script.start();
  });
  after(() => script.stop());

  test("resumes after a drop, a 503 and a clean cut with Last-Event-ID, each event once", async () => {
    script.play(
      stream(event(1, "GameCreated") + ": keep-alive\n\n" + event(2), "drop"),
      (response) => problem(response, 503, "unavailable", "restarting"),
      stream(event(2) + event(3), "end"), // a clean cut: asked again
      stream(event(4, "GameFinished"), "end"),
      stream(": nothing new\n\n", "end"), // the game has finished
    );
    const reconnects: number[] = [];
    const versions = await collect(
      follow({ baseUrl, gameId: "g1", token: "seat-token", retryDelayMs: 1, onReconnect: (at) => reconnects.push(at) }),
    );
    assert.deepEqual(versions, [1, 2, 3, 4]);
    assert.deepEqual(reconnects, [2, 2]);
    assert.deepEqual(script.seen.map((s) => s.lastEventId), [undefined, "2", "2", "3", "4"]);
    assert.ok(script.seen.every((s) => s.url === "/games/g1/events/stream" && s.auth === "Bearer seat-token"));
  });

  test("starts after a given version", async () => {
    script.play(stream(event(6) + event(7), "end"), stream("", "end"));
    assert.deepEqual(await collect(follow({ baseUrl, gameId: "g1", after: 5 })), [6, 7]);
    assert.deepEqual(script.seen.map((s) => s.lastEventId), ["5", "7"]);
  });

  test("a refusal is a ProblemError, not retried", async () => {
    script.play((response) => problem(response, 404, "game-not-found", "no game g2"));
    await assert.rejects(collect(follow({ baseUrl, gameId: "g2", retryDelayMs: 1 })), (error: unknown) => {
      assert.ok(isProblem(error, "game-not-found"));
      assert.equal(error.status, 404);
      assert.equal(error.detail, "no game g2");
      return true;
    });
    assert.equal(script.seen.length, 1);
  });

  test("gives up once its retries are spent without a new event", async () => {
    const drop = stream(": nothing\n\n", "drop");
    script.play(drop, drop, drop);
    await assert.rejects(collect(follow({ baseUrl, gameId: "g3", retries: 2, retryDelayMs: 1 })));
    assert.equal(script.seen.length, 3);
  });

  test("stops when its signal aborts", async () => {
    script.play(stream(event(1), "drop"), stream(event(2), "drop"));
    const stop = new AbortController();
    const versions: number[] = [];
    for await (const e of follow({ baseUrl, gameId: "g4", signal: stop.signal, retryDelayMs: 1 })) {
      versions.push(e.version);
      stop.abort();
    }
    assert.deepEqual(versions, [1]);
  });
});

describe("ok and ProblemError", () => {
  const reply = (status: number) => new Response(null, { status, statusText: status === 502 ? "Bad Gateway" : "" });

  test("a problem body keeps its members, the extra ones in `extra`", async () => {
    const body = {
      type: "https://tabula.dev/problems/version-conflict",
      title: "Version conflict",
      status: 409,
      detail: "expected_version 7 but the game is at version 1",
      instance: "/games/g/moves",
      current_version: 1,
    };
    await assert.rejects(ok({ error: body, response: reply(409) }), (error: unknown) => {
      assert.ok(error instanceof ProblemError);
      assert.equal(error.slug, "version-conflict");
      assert.equal(error.title, "Version conflict");
      assert.equal(error.instance, "/games/g/moves");
      assert.deepEqual(error.extra, { current_version: 1 });
      assert.match(error.message, /^409 Version conflict: expected_version 7/);
      return true;
    });
  });

  test("a body that is no problem becomes about:blank with the HTTP status", async () => {
    await assert.rejects(ok({ error: "<html>proxy</html>", response: reply(502) }), (error: unknown) => {
      assert.ok(isProblem(error, "about:blank"));
      assert.equal(error.status, 502);
      assert.equal(error.title, "Bad Gateway");
      assert.equal(error.detail, "<html>proxy</html>");
      return true;
    });
  });

  test("data passes through", async () => {
    assert.deepEqual(await ok({ data: { id: "g" }, response: reply(201) }), { id: "g" });
  });
});
