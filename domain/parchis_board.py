"""Board geometry shared by ``parchis``, ``parchis-2dice`` and ``ludo`` (rules/parchis.md §3, §9.1).

A piece's place is its *relative* number ``r`` along its own colour's path: ``START`` (-1) in
jail or yard, ``0 .. track_steps - 1`` on the shared loop (0 = its exit square), then its home
column, and ``goal`` last. Every relative number maps to a *cell*, an integer shared by all
colours: ``0 .. track - 1`` for the loop squares, then one cell per colour and home-column
square; the goal has none (``NO_CELL``). All tables are computed once, at import.
"""

from __future__ import annotations

from domain.model import Piece

START = -1
NO_CELL = -1
PIECES = 4


class Board:
    """One board's geometry as lookup tables (treat as immutable)."""

    def __init__(
        self,
        colours: tuple[str, ...],
        track: int,
        first_number: int,
        exits: tuple[int, ...],
        track_steps: int,
        lane: int,
        safe: frozenset[int],
        seatings: dict[int, tuple[int, ...]],
    ) -> None:
        self.colours = colours
        self.track = track
        self.first_number = first_number
        self.track_steps = track_steps
        self.lane = lane
        self.goal = track_steps + lane
        self.safe = safe
        self.seatings = seatings
        self.colour_index = {name: index for index, name in enumerate(colours)}
        self.cells = tuple(self._cells(colour, exit_) for colour, exit_ in enumerate(exits))
        self.names = tuple(self._names(colour) for colour in range(len(colours)))
        self.places = tuple({name: r - 1 for r, name in enumerate(names)} for names in self.names)
        self.named: dict[tuple[int, ...], tuple[tuple[str, int, tuple[str, ...]], ...]] = {}
        """Per seating, each piece's name, seat and public positions (made when first asked)."""

    def _cells(self, colour: int, exit_: int) -> tuple[int, ...]:
        """Cell of each relative number 0..goal of one colour."""
        loop = [(exit_ + r) % self.track for r in range(self.track_steps)]
        lane = [self.track + colour * self.lane + k for k in range(self.lane)]
        return (*loop, *lane, NO_CELL)

    def _names(self, colour: int) -> tuple[str, ...]:
        """Public position of each relative number, indexed by ``r + 1`` (jail first)."""
        loop = [self.cell_name(cell) for cell in self.cells[colour][: self.track_steps]]
        lane = [f"lane:{k}" for k in range(1, self.lane + 1)]
        return ("start", *loop, *lane, "home")

    def cell_name(self, cell: int) -> str:
        """``track:N`` of a loop cell."""
        return f"track:{cell + self.first_number}"

    def place(self, colour: int, r: int) -> str:
        """The public position of relative number ``r`` of ``colour``."""
        return self.names[colour][r + 1]

    def parse(self, colour: int, place: str) -> int:
        """The relative number of a public position for ``colour`` (inverse of ``place``)."""
        return self.places[colour][place]

    def piece_name(self, colours: tuple[int, ...], piece: int) -> str:
        """``yellow-2`` for piece index ``piece`` (seat * 4 + number - 1)."""
        return f"{self.colours[colours[piece // PIECES]]}-{piece % PIECES + 1}"

    def piece_index(self, colours: tuple[int, ...], name: str) -> int:
        """The piece index of ``yellow-2`` (inverse of ``piece_name``)."""
        colour, _, number = name.rpartition("-")
        return colours.index(self.colour_index[colour]) * PIECES + int(number) - 1

    def pieces(self, colours: tuple[int, ...], pos: tuple[int, ...]) -> list[Piece]:
        """Every piece as the public model shows it."""
        named = self.named.get(colours)
        if named is None:
            named = self.named[colours] = tuple(
                (
                    self.piece_name(colours, piece),
                    piece // PIECES,
                    self.names[colours[piece // PIECES]],
                )
                for piece in range(len(colours) * PIECES)
            )
        return [
            Piece(name, seat, places[r + 1])
            for (name, seat, places), r in zip(named, pos, strict=True)
        ]


def _numbers_to_cells(numbers: tuple[int, ...], first: int) -> frozenset[int]:
    return frozenset(number - first for number in numbers)


PARCHIS = Board(
    colours=("yellow", "blue", "red", "green"),
    track=68,
    first_number=1,
    exits=(4, 21, 38, 55),
    track_steps=64,
    lane=7,
    safe=_numbers_to_cells((5, 12, 17, 22, 29, 34, 39, 46, 51, 56, 63, 68), 1),
    seatings={2: (0, 2), 3: (0, 1, 2), 4: (0, 1, 2, 3)},
)
"""68 squares 1..68; exits 5, 22, 39, 56; home columns H1..H7; seats Yellow, Blue, Red, Green."""

LUDO = Board(
    colours=("red", "green", "yellow", "blue"),
    track=52,
    first_number=0,
    exits=(0, 13, 26, 39),
    track_steps=51,
    lane=5,
    safe=frozenset(),
    seatings={2: (0, 2), 3: (0, 1, 2), 4: (0, 1, 2, 3)},
)
"""52 squares L0..L51; starts L0, L13, L26, L39; home columns H1..H5; Red, Green, Yellow, Blue."""

LUDO_SAFE: dict[str, frozenset[int]] = {
    "none": frozenset(),
    "starts": frozenset({0, 13, 26, 39}),
    "starts_and_stars": frozenset({0, 13, 26, 39, 8, 21, 34, 47}),
}
"""Safe loop cells of each ``safe_squares`` option of ``ludo``."""
