"""Sorry! with a hand of five cards: play one, draw one (rule set ``sorry-hand``,
rules/sorry-hand.md).

Board, pawns, positions, piece ids and card moves are those of ``domain.sorry`` (imported, not
copied), with rule L4 of sorry-hand.md section 5 switched on by the option
``mid_slide_landing_returns_to_start``: a pawn ending a movement inside a slide of another
colour goes back to its Start (an effect with why ``landed inside the slide of <colour>``).
That rule is ``MidSlide``, sorry's scratch board with its ``ended`` hook overridden.

Turn procedure (sorry-hand.md section 4), as pending actions:

1. ``deal`` (chance, the first player): 5 cards to every seat, one at a time, starting with the
   first player; the service records ``CardsDealt``.
2. ``move``: every legal move of every card in the hand (ids as in sorry, starting with the
   card: ``7:track:4>track:9+...``, ``11:track:5<>track:46``). When the only options are 11
   swaps the seat may instead decline and discard in one decision,
   ``11:decline+discard:<card>`` (one id per card of the hand, the 11s included). A dead hand
   (no legal move at all) discards one card of its choice: ``discard:<card>``. The pending
   kind is ``move`` in all three cases (see hidden information).
3. ``draw`` (chance): the hand is refilled to 5 (``CardDrawn``). A draw that finds the pile
   empty shuffles the discard pile back first (sorry-hand.md section 4 step 5 and tricky case
   10; the card just played is in it): ``chance`` then names the discards as the pile to draw
   from and says how many go back (``Draw.reshuffled``), and the referee records
   ``DeckShuffled`` just before that ``CardDrawn``. Until that draw the state shows the empty
   pile and every discard. Version 1 (``domain/sorry_hand_v1.py``) shuffled with the play that
   found the pile empty, before the seat was pending its draw.
4. With ``two_plays_again`` a 2 that was played (not discarded) gives the same seat one more
   play after its draw. If that extra play has no legal move, the turn passes automatically
   (``TurnPassed``, nothing is discarded). Declining a swap-only hand in an extra play is
   still followed by a discard (sorry-hand.md step 7 only waives the discard when no legal
   move exists), so there too the decline is ``11:decline+discard:<card>``.

Decisions are recorded as ``MovePlayed`` (uses = the card that leaves the hand): a move,
``11:decline+discard:<card>`` or ``discard:<card>`` (no steps). Logs written before declines
were one decision hold a bare ``11:decline`` (uses ``11``, the 11 stays in the hand) followed by
a ``discard:<card>`` decision (pending kind ``discard``); ``apply`` still replays them, but
``11:decline`` is no longer a legal move (so such a log no longer passes the re-decided
verification of an import), and ``redact`` leaves them as they are: the two events would
tell a decline apart whatever they showed.

Hidden information: a hand is seen only by its owner and the referee; others and spectators
see its size. ``redact`` hides other seats' cards in ``CardsDealt`` and ``CardDrawn``. Played
and discarded cards are public: the rules put them face up on the discard pile
(sorry-hand.md section 4 step 4 and "Played and discarded cards are public (the discard of a
dead hand too)"), so ``discard:<card>`` shows its card to everyone. What the table sees of a
declined swap is just that: a card put face up without moving, exactly like the discard of a
dead hand; that the seat held an 11 with a swap is not shown **(chosen: the rules make the
decline optional and say nothing of announcing it)**. So:

- ``redact`` shows ``11:decline+discard:<card>`` to everyone but the declining seat (and the
  referee) as ``discard:<card>`` with the same ``uses``: the very event a dead hand's discard
  of that card is. The decline is one event, like the discard, so the log's length does not
  tell them apart either.
- ``to_act`` says ``move`` for a dead hand too (its legal moves are its discards), because the
  view shows every seat's pending kind to everyone: ``discard`` for a dead hand and ``move``
  for a swap-only hand would tell others before the decision which one the seat holds.
- What the rules themselves make public stays visible: the discarded card (a discarded 11
  after a possible swap shows that an 11 was declined, as at a table), and in an extra play
  after a 2 a dead hand passes (``TurnPassed``) while a declining hand discards.

The rules do not say whether hands are shown when the game ends, so they stay hidden (except
to the referee) after the end too **(chosen default)**. Hands in views are lists in card order
(``1`` .. ``12``, ``sorry``).

Errors (``domain.model``)::

    GameError
     +-- BadSetup        (player count, options)
     +-- IllegalMove     (says why)
     +-- NotYourTurn
     +-- GameOver
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache
from typing import Annotated, Any, Literal

import msgspec
from msgspec.structs import replace

from domain import events, model, sorry, track
from domain.events import CardDrawn, CardsDealt, DeckShuffled, Event, MovePlayed, TurnPassed
from domain.model import (
    COLOURS,
    HIDDEN,
    ChanceNeed,
    Deal,
    Draw,
    GameOver,
    IllegalMove,
    Move,
    NotYourTurn,
    Pending,
    Viewer,
    chance_move,
    status_of,
)
from domain.sorry import CARD_RANK, PAWNS
from domain.track import NOWHERE

NAME = "sorry-hand"
VERSION = 2
MIN_PLAYERS = sorry.MIN_PLAYERS
MAX_PLAYERS = sorry.MAX_PLAYERS


class Options(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The options of sorry-hand."""

    include_sorry_cards: Annotated[
        bool, msgspec.Meta(description="add the four Sorry! cards (45 cards instead of 41)")
    ] = False
    mid_slide_landing_returns_to_start: Annotated[
        bool,
        msgspec.Meta(
            description="a pawn ending its movement inside a slide of another colour goes "
            "back to its Start"
        ),
    ] = True
    two_plays_again: Annotated[
        bool, msgspec.Meta(description="after playing a 2 and drawing, play one more card")
    ] = False
    fast_start: Annotated[
        bool, msgspec.Meta(description="each colour starts with one pawn on its start circle")
    ] = False
    first_player: Annotated[
        int,
        msgspec.Meta(
            ge=0, le=MAX_PLAYERS - 1, description="the seat that plays first (and is dealt first)"
        ),
    ] = 0


OPTIONS: dict[str, Any] = msgspec.to_builtins(Options())

HAND = 5
DECK: dict[str, int] = {**dict.fromkeys(sorry.CARDS, 4), "1": 5, "sorry": 0}
DECLINE = "11:decline"
"""A declined swap: the prefix of ``11:decline+discard:<card>`` (alone only in older logs)."""
DISCARD = "discard:"
DECLINE_DISCARD = f"{DECLINE}+{DISCARD}"

Phase = Literal["deal", "play", "discard", "draw"]


class State(msgspec.Struct, frozen=True):
    """Pawns (sorry's location codes), hands, piles and where the turn stands.

    ``phase``: ``deal`` before the deal, ``play`` a seat must play from its hand (or decline a
    swap and discard, or discard a dead hand), ``discard`` after a bare ``11:decline`` of an
    older log, ``draw`` a seat must refill its hand.
    ``again``: the card just played was a 2 and the seat plays once more after drawing;
    ``extra``: the current play is such an extra play (no dead-hand discard).
    """

    seats: int
    pawns: tuple[int, ...]
    pile: tuple[str, ...]
    hands: tuple[tuple[str, ...], ...]
    discard: tuple[str, ...] = ()
    turn: int = 0
    phase: Phase = "deal"
    again: bool = False
    extra: bool = False
    mid_slide: bool = True
    two_plays_again: bool = False
    finished: bool = False
    winners: tuple[int, ...] = ()


# --- setup ------------------------------------------------------------------------------------


def setup(options: dict[str, Any], seats: int) -> State:
    """Pawns in Start (one on its start circle with ``fast_start``), the deck still to deal."""
    opts = model.parse_options(NAME, Options, options)
    sorry.check_table(NAME, seats, opts.first_player)
    deck = {**DECK, "sorry": 4} if opts.include_sorry_cards else DECK
    return State(
        seats=seats,
        pawns=sorry.start_pawns(seats, opts.fast_start),
        pile=tuple(card for card in sorry.CARDS for _ in range(deck[card])),
        hands=((),) * seats,
        turn=opts.first_player,
        mid_slide=opts.mid_slide_landing_returns_to_start,
        two_plays_again=opts.two_plays_again,
    )


# --- legal moves -------------------------------------------------------------------------------


def _sorted(cards: Any) -> tuple[str, ...]:
    return track.sorted_by(CARD_RANK, cards)


class MidSlide(sorry.Board):
    """Rule L4: a pawn ending a movement inside a slide of another colour (between its
    triangle and its end) goes back to its Start."""

    __slots__ = ()

    def ended(self, pawn: int, square: int) -> None:
        colour = sorry.INTERIOR_OF[square]
        if colour not in (NOWHERE, pawn // PAWNS):
            sorry.to_start(self, pawn, f"landed inside the slide of {COLOURS[colour]}")


@lru_cache(maxsize=128)
def hand_moves(
    pawns: tuple[int, ...], seat: int, hand: tuple[str, ...], mid_slide: bool
) -> tuple[Move, ...]:
    """Every legal (card, move) option of ``hand``, by card; when all are swaps, also declining
    them with the discard of each card (section 4, steps 1-4). Memoised: to_act, legal_moves
    and decide ask for the same ones."""
    moves: list[Move] = []
    board = MidSlide if mid_slide else sorry.Board
    for card in dict.fromkeys(hand):
        moves.extend(sorry.card_moves(pawns, seat, card, board))
    if moves and all(sorry.is_swap(move) for move in moves):
        moves.extend(Move(DECLINE_DISCARD + card, seat, card) for card in dict.fromkeys(hand))
    return tuple(moves)


def _plays(state: State) -> tuple[Move, ...]:
    seat = state.turn
    return hand_moves(state.pawns, seat, state.hands[seat], state.mid_slide)


def _discards(state: State) -> list[Move]:
    seat = state.turn
    return [Move(DISCARD + card, seat, card) for card in dict.fromkeys(state.hands[seat])]


def _decision(state: State) -> Pending | None:
    """The decision the seat to act faces, or None (chance, automatic or finished). A dead
    hand's discard is a ``move`` too: the kind is public, the hand is not."""
    if state.finished or state.phase in ("deal", "draw"):
        return None
    if state.phase == "discard":
        return Pending(state.turn, "discard")
    if state.extra and not _plays(state):
        return None
    return Pending(state.turn, "move")


# --- what a move does --------------------------------------------------------------------------


def reshuffled(state: State) -> State:
    """The discards shuffled back into the draw pile."""
    return replace(state, pile=_sorted(state.pile + state.discard), discard=())


def _discarded(move_id: str) -> bool:
    """Whether the card of ``move_id`` was discarded (dead hand or declined swap), not played."""
    return move_id.startswith((DISCARD, DECLINE_DISCARD))


def _play_card(state: State, card: str) -> State:
    """``card`` leaves the hand of the seat to act, face up onto the discard pile."""
    hand = list(state.hands[state.turn])
    hand.remove(card)
    hands = _put(state.hands, state.turn, tuple(hand))
    return replace(state, hands=hands, discard=(*state.discard, card))


def _next_turn(state: State) -> State:
    turn = (state.turn + 1) % state.seats
    return replace(state, turn=turn, phase="play", again=False, extra=False)


def _without(pile: tuple[str, ...], cards: list[str]) -> tuple[str, ...]:
    """The pile (a sorted multiset) less ``cards``."""
    if len(cards) == 1:
        at = pile.index(cards[0])
        return pile[:at] + pile[at + 1 :]
    left = Counter(pile)
    left.subtract(cards)
    return _sorted(left.elements())


def _put(
    hands: tuple[tuple[str, ...], ...], seat: int, hand: tuple[str, ...]
) -> tuple[tuple[str, ...], ...]:
    return (*hands[:seat], hand, *hands[seat + 1 :])


# --- hidden information ------------------------------------------------------------------------


def _sees(viewer: Viewer, seat: int) -> bool:
    return viewer == "referee" or viewer == seat


def finished(state: State) -> dict[int, int]:
    """Pieces home per seat."""
    return model.home_counts(sorry.pieces(state.pawns))


class SorryHandView(model.View, frozen=True, kw_only=True, tag=NAME):
    """sorry-hand's view: sorry's fields, the hands as the viewer may see them, and whether
    the seat to act is on the extra play a 2 gives."""

    turn: int
    colours: list[str]
    hands: list[model.Hand]
    draw_pile: int
    discard: list[str]
    extra_play: bool


def redact(event: Event, viewer: Viewer) -> Event:
    """The event with the cards of other seats' hands (dealt or drawn) hidden, and another
    seat's declined swap shown as the discard it also is (see the module docstring)."""
    match event:
        case CardsDealt(seats=seats, hands=hands):
            shown = tuple(
                cards if _sees(viewer, seat) else (HIDDEN,) * len(cards)
                for seat, cards in zip(seats, hands, strict=True)
            )
            return replace(event, hands=shown)
        case CardDrawn(seat=seat) if not _sees(viewer, seat):
            return replace(event, card=HIDDEN)
        case MovePlayed(seat=seat, move=move) if move.startswith(DECLINE_DISCARD) and not _sees(
            viewer, seat
        ):
            return replace(event, move=DISCARD + move.removeprefix(DECLINE_DISCARD))
    return event


# --- the rule set surface ----------------------------------------------------------------------


class SorryHand:
    """sorry-hand's turn as named hooks (the protocol functions); ``sorry_hand_v1.SorryHandV1``
    overrides what version 1 did differently."""

    def to_act(self, state: State) -> list[Pending]:
        """The dealer, the seat to play or discard, or the seat to draw; nothing when finished or
        when an automatic event is due."""
        if state.finished:
            return []
        if state.phase == "deal":
            return [Pending(state.turn, "deal")]
        if state.phase == "draw":
            return [Pending(state.turn, "draw")]
        decision = _decision(state)
        return [] if decision is None else [decision]

    def legal_moves(self, state: State, seat: int) -> list[Move]:
        """``deal``/``draw`` for chance, the hand's moves, or its discards (a dead hand, or after
        a bare ``11:decline`` of an older log); only for ``seat``."""
        for pending in self.to_act(state):
            if pending.seat != seat:
                continue
            if pending.kind in ("deal", "draw"):
                return [chance_move(pending)]
            plays = _plays(state) if state.phase == "play" else ()
            return list(plays) or _discards(state)
        return []

    def chance(self, state: State) -> ChanceNeed | None:
        """The initial deal, or one card to refill the hand of the seat that played: from the
        draw pile, or when it is empty from the discards, which are shuffled back first
        (``reshuffled``)."""
        if state.finished:
            return None
        if state.phase == "deal":
            order = tuple((state.turn + i) % state.seats for i in range(state.seats))
            return Deal(pile=state.pile, seats=order, count=HAND)
        if state.phase == "draw":
            if not state.pile:
                return Draw(pile=_sorted(state.discard), reshuffled=len(state.discard))
            return Draw(pile=state.pile)
        return None

    def automatic(self, state: State) -> list[Event]:
        """Pass an extra play after a 2 that has no legal move."""
        if state.finished:
            return []
        if state.phase == "play" and state.extra and not _plays(state):
            return [TurnPassed(state.turn, "no legal move for the extra play after a 2")]
        return []

    def decide(self, state: State, seat: int, move_id: str) -> list[Event]:
        """MovePlayed for a legal move, decline and discard, or discard (and GameFinished when all
        4 pawns are home); raises a GameError saying why otherwise."""
        if state.finished:
            raise GameOver("the game is over")
        if seat != state.turn:
            raise NotYourTurn(f"it is seat {state.turn + 1}'s turn, not seat {seat + 1}'s")
        pending = _decision(state)
        if pending is None:
            action = "deal" if state.phase == "deal" else "draw a card"
            raise IllegalMove(f"move {move_id!r} is not legal: {COLOURS[seat]} must {action} first")
        legal = {move.id: move for move in self.legal_moves(state, seat)}
        move = legal.get(move_id) or legal.get(sorry.reversed_split(move_id))
        if move is None:
            raise IllegalMove(explain(state, pending, move_id, list(legal)))
        return sorry.played_events(move, state.pawns)

    def apply(self, state: State, event: Event) -> State:
        """The reducer."""
        match event:
            case CardsDealt(seats=seats, hands=dealt):
                hands = list(state.hands)
                for seat, cards in zip(seats, dealt, strict=True):
                    hands[seat] = _sorted(hands[seat] + cards)
                dealt_cards = [card for cards in dealt for card in cards]
                return replace(
                    state, pile=_without(state.pile, dealt_cards), hands=tuple(hands), phase="play"
                )
            case MovePlayed(move=move_id) if move_id == DECLINE:
                return replace(state, phase="discard")
            case MovePlayed(move=move_id, uses=str(card)):
                pawns = sorry.moved_pawns(state.pawns, event)
                again = state.two_plays_again and card == "2" and not _discarded(move_id)
                return replace(_play_card(state, card), pawns=pawns, phase="draw", again=again)
            case CardDrawn(seat=seat, card=card):
                if not state.pile:  # the bare outcome of a draw that reshuffles (bots, analysis)
                    state = reshuffled(state)
                drawn = _put(state.hands, seat, _sorted((*state.hands[seat], card)))
                state = replace(state, pile=_without(state.pile, [card]), hands=drawn)
                if state.again:
                    return replace(state, phase="play", again=False, extra=True)
                return _next_turn(state)
            case TurnPassed():
                return _next_turn(state)
            case DeckShuffled():
                return reshuffled(state)
            case events.GameFinished(winners=winners):
                return replace(state, finished=True, winners=winners)
        return state

    def view(self, state: State, viewer: Viewer) -> SorryHandView:
        """The board, piles (sizes and public discards) and hands as ``viewer`` may see them."""
        return SorryHandView(
            status=status_of(state.finished),
            pieces=sorry.pieces(state.pawns),
            to_act=self.to_act(state),
            chance=None,
            winners=list(state.winners),
            turn=state.turn,
            colours=list(COLOURS[: state.seats]),
            hands=[track.hand_view(hand, seat, viewer) for seat, hand in enumerate(state.hands)],
            draw_pile=len(state.pile),
            discard=list(state.discard),
            extra_play=bool(state.extra),
        )


RULES = SorryHand()
"""The rule set's one instance: the module's protocol functions are its bound methods."""
to_act = RULES.to_act
legal_moves = RULES.legal_moves
chance = RULES.chance
automatic = RULES.automatic
decide = RULES.decide
apply = RULES.apply
view = RULES.view


# --- why a move is illegal ---------------------------------------------------------------------


def explain(state: State, pending: Pending, move_id: str, legal: list[str]) -> str:
    """Why ``move_id`` is not legal for the seat to act (a lower-case sentence)."""
    seat = state.turn
    hand = state.hands[seat]
    if move_id.startswith(DECLINE_DISCARD):
        discarded = move_id.removeprefix(DECLINE_DISCARD)
        if discarded not in CARD_RANK:
            return f"move {move_id!r} is not a move id: expected '{DECLINE_DISCARD}<card>'"
        if discarded not in hand:
            return f"card {discarded!r} is not in seat {seat + 1}'s hand"
    card = move_id.removeprefix(DISCARD) if move_id.startswith(DISCARD) else move_id.split(":")[0]
    if card not in CARD_RANK:
        return f"move {move_id!r} is not a move id: expected '<card>:...' or 'discard:<card>'"
    if card not in hand:
        return f"card {card!r} is not in seat {seat + 1}'s hand"
    if pending.kind == "discard":
        return f"move {move_id!r} is not legal: {COLOURS[seat]} must discard a card"
    can_decline = any(m.startswith(DECLINE_DISCARD) for m in legal)
    if move_id.startswith(DISCARD):
        if can_decline:
            return (
                f"{COLOURS[seat]} cannot discard: it may swap, or decline the swap and discard "
                f"with {DECLINE_DISCARD + card!r}"
            )
        return f"{COLOURS[seat]} cannot discard: it has a legal move, e.g. {legal[0]!r}"
    if move_id.startswith(DECLINE):
        if can_decline:
            return f"a decline names the card it discards: '{DECLINE_DISCARD}<card>'"
        if not legal or legal[0].startswith(DISCARD):
            return f"card '11' cannot be declined: {COLOURS[seat]} has no swap to decline"
        return f"card '11' cannot be declined: {COLOURS[seat]} has a move other than a swap"
    single = sorry.State(state.seats, state.pawns, (), turn=seat, card=card)
    return sorry.explain(single, move_id, [m for m in legal if m.split(":")[0] == card])
