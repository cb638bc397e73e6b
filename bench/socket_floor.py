"""The game socket's floor: the node driver against an app that only echoes, on Tabula's server.

The same uvicorn server as the service (``service.__main__.server_config``: the bounded
HTTP protocol, the sans-I/O WebSocket protocol with its budgets, uvloop) serves an app of
three routes that do nothing a referee does: ``POST /games`` and ``GET /games/{id}/legal-
moves`` answer a fixed game, and ``/games/{id}/socket`` answers ``hello`` with ``welcome``
and every ``play`` with a ``played`` frame of a race35 move's size and shape (a die thrown
and a piece moved, the next seat's legal moves), its JSON read and its reply written, no
store and no rules. ``bench/node/driver.js`` plays against it as against the service, so a
move cannot be served faster by this server and framework than the floor's rate.

Run ``python bench/socket_floor.py [--clients 8 32] [--seconds 8]`` (node 20 or later).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if Path(sys.path[0]).resolve() == ROOT / "bench":
    sys.path[0] = str(ROOT)  # as a script, this folder would shadow the project's packages

import argparse  # noqa: E402
import json  # noqa: E402
import uuid  # noqa: E402
from contextlib import AbstractContextManager  # noqa: E402
from typing import Any  # noqa: E402

from bench.harness import python_server  # noqa: E402
from bench.node_socket import drive  # noqa: E402

HASH = "0" * 64
ROLL = {"id": "roll", "seat": 0, "uses": None, "steps": [], "effects": []}
LEGAL = {"version": 1, "moves": [ROLL]}
MOVES = 120
"""A floor game's length in moves: then its legal moves are none, and the driver starts another
(a four-seat race35 game between random players lasts about as long)."""


def events_json(game_id: str, version: int) -> str:
    """A race35 move's two events as the service encodes them: a die thrown, a piece moved."""
    common = {"game_id": game_id, "at": "2026-12-06T14:31:44.212470Z", "prev_hash": HASH}
    step = {"piece": "red-1", "from": "track:1", "to": "track:3"}
    moved = {"seat": 0, "move": "throw:2", "uses": [2], "steps": [step], "effects": []}
    events = [
        {**common, "version": version - 1, "type": "DiceRolled", "by": "referee"}
        | {"data": {"seat": 0, "dice": [2]}, "hash": HASH},
        {**common, "version": version, "type": "MovePlayed", "by": "server"}
        | {"data": {**moved, "auto": True}, "hash": HASH},
    ]
    return json.dumps(events, separators=(",", ":"))


def floor_app() -> Any:
    """The app under test in the server process (see the module's text)."""
    import msgspec
    from litestar import Litestar, WebSocket, get, post, websocket
    from litestar.exceptions import WebSocketDisconnect

    @post("/games", status_code=201)
    async def create() -> dict[str, Any]:
        seats = [uuid.uuid4().hex for _ in range(4)]
        return {"id": uuid.uuid4().hex, "tokens": {"referee": uuid.uuid4().hex, "seats": seats}}

    @get("/games/{game_id:str}/legal-moves")
    async def legal(game_id: str) -> dict[str, Any]:
        return LEGAL

    @get("/health", sync_to_thread=False)
    def health() -> dict[str, str]:
        return {"status": "ok"}

    @websocket("/games/{game_id:str}/socket")
    async def socket(socket: WebSocket[Any, Any, Any], game_id: str) -> None:
        await socket.accept()
        version = 1
        try:
            while True:
                message = msgspec.json.decode(await socket.receive_data("text"))
                if message["type"] == "hello":
                    await socket.send_text(
                        '{"type":"welcome","role":"referee","seat":null,"version":1}'
                    )
                    continue
                version += 2
                events = events_json(game_id, version)
                moves = [ROLL] if version < 2 * MOVES else []
                legal_json = json.dumps({"version": version, "moves": moves})
                head = f'{{"type":"played","ref":{json.dumps(message["ref"])},"version":{version}'
                await socket.send_text(f'{head},"events":{events},"legal_moves":{legal_json}}}')
        except WebSocketDisconnect:
            return

    return Litestar([create, legal, health, socket], logging_config=None, debug=False)


def serve(port: int) -> None:
    """Serve the floor app as the service is served (in the server process)."""
    import uvicorn

    from service.__main__ import server_config, tune_gc, tune_threads
    from service.settings import Settings

    config = server_config(Settings(port=port, log_level="warning"), floor_app())
    tune_gc()
    tune_threads()
    uvicorn.Server(config).run()


def floor_server() -> AbstractContextManager[tuple[str, int]]:
    """The floor app in its own process on a free port; its URL and pid."""
    return python_server("import bench.socket_floor as f; f.serve({port})")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--clients", type=int, nargs="+", default=[8, 32])
    parser.add_argument("--seconds", type=float, default=8.0)
    args = parser.parse_args(argv)
    with floor_server() as (url, pid):
        for clients in args.clients:  # a driver each: its idle keep-alive connections closed
            drive(url, pid, [clients], args.seconds, "floor: echo on the service's server")


if __name__ == "__main__":
    main()
