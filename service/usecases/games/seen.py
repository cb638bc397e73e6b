"""Each seat's log as it sees it (other hands hidden), kept in memory for the bots and the
hints that decide from it. A log only grows, so a seat asked again reads the store only past
what it read last."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from bots.latest import keep
from domain.events import Event
from domain.ruleset import RuleSet
from eventstore import EventStore
from service.usecases.games.repository import to_domain


class SeatLogs:
    """The logs of the latest ``most`` games and seats asked for, as those seats see them."""

    def __init__(self, store: EventStore, most: int) -> None:
        self.store, self.most = store, most
        self.kept: OrderedDict[tuple[str, int], list[Event]] = OrderedDict()

    def seen_by(self, game_id: str, seat: int, rules: RuleSet[Any], until: int) -> list[Event]:
        """The events of ``game_id`` up to version ``until``, redacted for ``seat``."""
        earlier = self.kept.pop((game_id, seat), [])[:until]
        stored = self.store.read(game_id, after=len(earlier), until=until)
        seen = earlier + [rules.redact(to_domain(event), seat) for event in stored]
        keep(self.kept, (game_id, seat), seen, self.most)
        return seen
