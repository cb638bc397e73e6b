"""What the win-chance model looks at: a few public features per seat.

Only the pieces' positions and who must act are read, never a hand, so a feature vector is the
same for every viewer. A piece's distance to home is measured in its own moves: the average
number of moves a piece at that location still made before finishing, over self-play games
(``train.py`` builds that table per rule set and seat).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from domain.ruleset import RuleSet

NAMES = ("distance", "farthest", "home", "start", "to_act", "behind", "behind_squared")
"""Per seat: total distance to home over its pieces (as a share of all pieces at start), the
farthest piece's distance (same scale), the share of pieces home, the share in start, whether
it must act now, and how far its distance is behind the leading seat's (and its square)."""

Distances = dict[int, dict[str, float]]
"""For each seat, each location's distance to home in moves."""


def seat_features(
    rules: RuleSet[Any], state: Any, distances: Distances, start: float
) -> dict[int, list[float]]:
    """The feature vector of every seat of ``state``."""
    shown = rules.view(state, None)
    by_seat: dict[int, list[str]] = defaultdict(list)
    for piece in shown.pieces:
        by_seat[piece.seat].append(piece.at)
    acting = {pending.seat for pending in shown.to_act}
    finished = rules.finished(state)
    features: dict[int, list[float]] = {}
    for seat, places in sorted(by_seat.items()):
        table = distances.get(seat, {})
        far = [table.get(at, start) if at != "home" else 0.0 for at in places]
        count = len(places)
        done = min(finished.get(seat, 0), count)
        features[seat] = [
            sum(far) / (count * start),
            max(far) / start,
            done / count,
            places.count("start") / count,
            1.0 if seat in acting else 0.0,
        ]
    lead = min(row[0] for row in features.values())
    for row in features.values():
        row.extend((row[0] - lead, (row[0] - lead) ** 2))
    return features
