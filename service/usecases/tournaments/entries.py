"""A tournament's entries as its creation takes them: guests by name, registered players by
handle.

A guest's name is kept as ``names.normal`` leaves it. A registered player's entry is named
for her handle as registered: the ``Roster`` (the players' book, as a game's creation asks
it) says the handle names a player who has not retired it (422 ``unknown-player``
otherwise); no bot plays her entry and no guest's name passes for her handle (422
``bad-setup``). Her tables seat her as her player's seat (``SeatSpec(player=...)``), so only
her key acts for it.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

from domain.tournament.state import Tournament
from service.core.fields import Path, bad_field
from service.core.names import normal
from service.core.refusal import refuse
from service.usecases.games.creation import NOT_REGISTERED, Roster
from service.usecases.tournaments.wire import PlayerSpec


def player_name(name: str, path: Path) -> str:
    """A guest's name as kept (``names.normal``); empty once trimmed is refused."""
    kept = normal(name, path)
    if not kept:
        raise bad_field(path, "a player's name needs a character other than spaces")
    return kept


def entered(players: Sequence[PlayerSpec], roster: Roster) -> list[PlayerSpec]:
    """Every entry checked and named as kept: a registered player's by her handle as
    registered (``player`` holds it too), a guest's by its name."""
    kept = [entry(spec, index, roster) for index, spec in enumerate(players)]
    handles: dict[str, int] = {}
    for index, spec in enumerate(kept):
        if spec.player is not None:
            handles.setdefault(canonical(spec.name), index)
    for index, spec in enumerate(kept):
        path = ("players", index, "name" if spec.player is None else "player")
        earlier = handles.get(canonical(spec.name), index)
        if earlier != index:
            why = f"`{spec.name}` is the registered player of entry {earlier}: one entry a name"
            raise bad_field(path, why, "bad-setup")
    return kept


def entry(spec: PlayerSpec, index: int, roster: Roster) -> PlayerSpec:
    """One entry checked and named as kept."""
    if spec.player is None:
        return PlayerSpec(player_name(spec.name, ("players", index, "name")), spec.bot)
    path = ("players", index, "player")
    handle = roster.seated(normal(spec.player, path))
    if handle is None:
        raise bad_field(path, f"`{spec.player}` {NOT_REGISTERED}", "unknown-player")
    if spec.bot is not None:
        why = "a registered player plays her own tables (she may hand a table to a bot)"
        raise bad_field(("players", index, "bot"), why, "bad-setup")
    name = normal(spec.name, ("players", index, "name"))
    if name and canonical(name) != canonical(handle):
        why = f"a registered player is named for her handle: `{handle}`, or no name"
        raise bad_field(("players", index, "name"), why, "bad-setup")
    return PlayerSpec(handle, None, handle)


def canonical(name: str) -> str:
    """A name as two that show alike compare (NFKC, case folded), as a game's creation
    compares a seat's name with a handle."""
    return unicodedata.normalize("NFKC", name).casefold()


def check_seated(state: Tournament, roster: Roster) -> None:
    """Every active registered player may still be seated (422 ``unknown-player`` naming one
    who retired her handle since she entered: the director withdraws her)."""
    for handle in state.handles:
        if handle in state.active and roster.seated(handle) != handle:
            raise refuse(
                "unknown-player",
                f"`{handle}` retired the handle: no table can seat her; withdraw her "
                "(POST /tournaments/{id}/withdrawals) and pair the round again",
            )
