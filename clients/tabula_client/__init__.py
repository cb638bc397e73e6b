"""Thin Python client for the Tabula referee service, with bots. Its wire types are generated
from openapi.json (``tabula_client.wire``; the view and event variants are imported from
there).

>>> from tabula_client import Client
>>> with Client("http://127.0.0.1:8000") as client:  # doctest: +SKIP
...     game = client.create_game("race35", ["Ann", "Bob"])
"""

from tabula_client.auth import BearerAuth
from tabula_client.bots import (
    Bot,
    GameStuck,
    GreedyBot,
    RandomBot,
    play_game,
    play_game_async,
    play_game_flow,
)
from tabula_client.client import AsyncClient, Client
from tabula_client.errors import (
    BadRequest,
    Conflict,
    Forbidden,
    NotFound,
    PayloadTooLarge,
    RateLimited,
    ServerError,
    TabulaError,
    Unauthorized,
    Unprocessable,
)
from tabula_client.flows import Flow
from tabula_client.models import (
    Archive,
    Audit,
    BatchCreated,
    CreatedGame,
    Effect,
    EventPage,
    GameRecord,
    GameSummary,
    GameView,
    Health,
    LegalMoves,
    Move,
    Pending,
    Piece,
    PlayResult,
    Problem,
    RuleSetInfo,
    Seat,
    Standing,
    Standings,
    Step,
    StoredEvent,
    Tokens,
    Verification,
)
from tabula_client.routes import DEFAULT_URL, OPERATIONS, Call, Routes, StreamCall

__all__ = [
    "DEFAULT_URL",
    "OPERATIONS",
    "Archive",
    "AsyncClient",
    "Audit",
    "BadRequest",
    "BatchCreated",
    "BearerAuth",
    "Bot",
    "Call",
    "Client",
    "Conflict",
    "CreatedGame",
    "Effect",
    "EventPage",
    "Flow",
    "Forbidden",
    "GameRecord",
    "GameStuck",
    "GameSummary",
    "GameView",
    "GreedyBot",
    "Health",
    "LegalMoves",
    "Move",
    "NotFound",
    "PayloadTooLarge",
    "Pending",
    "Piece",
    "PlayResult",
    "Problem",
    "RandomBot",
    "RateLimited",
    "Routes",
    "RuleSetInfo",
    "Seat",
    "ServerError",
    "Standing",
    "Standings",
    "Step",
    "StoredEvent",
    "StreamCall",
    "TabulaError",
    "Tokens",
    "Unauthorized",
    "Unprocessable",
    "Verification",
    "play_game",
    "play_game_async",
    "play_game_flow",
]
