"""Hand-written helpers that generated wire types inherit (see ``codegen.MIXINS``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tabula_client.wire import SeatView


class ViewMixin:
    """Helpers of every game view (``GameView``)."""

    __slots__ = ()

    if TYPE_CHECKING:
        status: str
        seats: list[SeatView]

    @property
    def is_finished(self) -> bool:
        """Whether the game is over."""
        return self.status == "finished"

    def seat_name(self, seat: int) -> str:
        """The name at ``seat`` (``seat N`` when the view does not say)."""
        for entry in self.seats:
            if entry.seat == seat:
                return entry.name
        return f"seat {seat}"
