"""Partners, the Danish team race game with 4-card hands (rule set ``partners``, partners.md).

Exactly 4 seats in two teams: seats 0 + 2 (team A, yellow and blue) and 1 + 3 (team B, red
and green). Colours follow partners.md, not ``domain.model.COLOURS``: seat 0 yellow, 1 red,
2 blue, 3 green, so piece ids are ``yellow-1`` .. ``green-4`` (colour, dash, number).

Positions: ``start`` (the home circle), ``track:N`` (P0..P{4L-1}, L = ``section_length``; the
start space of seat s is ``track:{L*s}``), and ``lane:K`` (the own finish zone, K = 1..4, 4 the
innermost). There is no ``home``: a pawn in the finish zone stays ``lane:K``; it is finished
(never moves again) once every deeper lane square is occupied, and the view lists the done
seats. Internally a location is a code: 0..4L-1 track, 4L + K - 1 lane K, 4L + 4 the circle;
pawn ``seat * 4 + i`` is the piece ``<colour>-<i + 1>``.

Card type ids (``uses`` of a move, and the cards of a hand): ``N2 N3 N5 N6 N9 N10 N12``
(forward that many), ``START``, ``START_8``, ``START_13`` (start, or forward 8 / 13),
``BACK_4``, ``ONE_14`` (forward 1 or 14), ``SEVEN`` (split 7) and ``SWAP``.

A deal cycle: ``deal`` (chance: ``Deal`` of 4 cards to each seat from the dealer's left) ->
``exchange`` (all four seats pending at once, ``CardExchanged``; the cards change hands when
all four have chosen) -> ``play`` (from the dealer's left, clockwise, seats with cards only;
a seat with no playable card lays its hand down: automatic ``TurnPassed``) -> the next deal.
Each dealer deals three times in a row. ``DeckShuffled`` (automatic) gathers the discard into
the draw pile before every deal (``reshuffle = every_deal``) or before a dealer's first deal
(``per_dealer``). The pile is a multiset kept in card order; draws are uniform.

Move ids (a pawn of the partner's colour, moved by a done player, is written ``<colour>@<from>``):

================================  ==============================================================
``exchange:<card>``               the card given to the partner: ``exchange:SEVEN``
``<card>:start><to>``             start move: ``START_8:start>track:0``, or for a done yellow
                                  ``START:blue@start>track:30``
``<card>:<from>><to>``            one pawn forward or backward, ``<to>`` where its walk ends
                                  (a bounce included; if that square holds a stack of another
                                  colour the pawn then goes to its circle, an effect):
                                  ``N5:track:57>lane:1``, ``BACK_4:track:0>track:56``
``SEVEN:<from>><to>+...``         the parts of a 7 in execution order; of several orders with the
                                  same final position, only the first in the search order (pawns
                                  by location code, each pawn's part from 1 step up) is listed
``SWAP:<square><><square>``       swap of the pawns on two track squares, lower square first
================================  ==============================================================

A move's ``steps`` are each moved pawn's own walk (``from`` -> where it ends); ``effects`` are
captures (``captured by ...``), a mover sent to its circle by a stack, and the swapped pawn.
``apply`` replays steps, then effects. The board, the walks and the moves of each card are in
``domain/partners_board.py``; this module holds the cards, the deal cycle and the protocol.

Errors (``domain.model``)::

    GameError
     +-- BadSetup        (player count, deck_counts, section_length, reshuffle, ...)
     +-- IllegalMove     (says why)
     +-- NotYourTurn
     +-- GameOver
"""

from __future__ import annotations

from functools import lru_cache
from typing import Annotated, Any, Literal, get_args

import msgspec
from msgspec.structs import replace

from domain import model, partners_board
from domain.events import (
    CardExchanged,
    CardsDealt,
    DeckShuffled,
    Event,
    GameFinished,
    MovePlayed,
    TurnPassed,
)
from domain.model import (
    HIDDEN,
    BadSetup,
    ChanceNeed,
    Deal,
    GameOver,
    Hand,
    IllegalMove,
    Move,
    NotYourTurn,
    Pending,
    Piece,
    Viewer,
    chance_move,
    check_players,
    parse_options,
    status_of,
)
from domain.partners_board import COLOURS as COLOURS
from domain.partners_board import LANE as LANE
from domain.partners_board import NAMES, PAWNS, PIECE, Board, move_reason, partner
from domain.partners_board import PLAYS as PLAYS
from domain.partners_board import SEATS as SEATS
from domain.partners_board import geometry as geometry
from domain.track import NOWHERE, hand_view, listed, sorted_by

NAME = "partners"
VERSION = 1
MIN_PLAYERS = 4
MAX_PLAYERS = 4
STACKING = True
"""Two or more pawns of one colour may share a track square (a safe stack)."""
STACK_LIMIT = 4
"""A stack has no limit but the 4 pawns of a colour (partners.md 3.4)."""

HAND = 4
DEALS_PER_DEALER = 3

Card = Literal[
    "N2",
    "N3",
    "N5",
    "N6",
    "N9",
    "N10",
    "N12",
    "START",
    "START_8",
    "START_13",
    "BACK_4",
    "ONE_14",
    "SEVEN",
    "SWAP",
]
CARDS: tuple[Card, ...] = get_args(Card)
CARD_RANK: dict[str, int] = {card: rank for rank, card in enumerate(CARDS)}


class Options(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The options of partners."""

    deck_counts: Annotated[
        dict[Card, Annotated[int, msgspec.Meta(ge=0, le=64)]],
        msgspec.Meta(
            description="copies of each card type: the whole deck (a type left out has none); "
            "at least 16 cards, 48 with reshuffle per_dealer"
        ),
    ] = msgspec.field(default_factory=lambda: dict.fromkeys(CARDS, 4))
    section_length: Annotated[
        int,
        msgspec.Meta(ge=2, le=1000, description="track squares per seat, its start space included"),
    ] = 15
    reshuffle: Annotated[
        Literal["every_deal", "per_dealer"],
        msgspec.Meta(
            description="every_deal: all cards are gathered and shuffled before every deal; "
            "per_dealer: only before a dealer's first of three deals"
        ),
    ] = "every_deal"
    partner_capture: Annotated[
        bool,
        msgspec.Meta(
            description="a pawn may capture a lone pawn of the partner's colour (and is sent "
            "home by the partner's stack); false: it may not end on the partner's pawns"
        ),
    ] = True
    first_dealer: Annotated[
        int, msgspec.Meta(ge=0, le=3, description="the first dealer ; its left plays first")
    ] = 0


OPTIONS: dict[str, Any] = msgspec.to_builtins(Options())


def team(seat: int) -> tuple[int, int]:
    """The two seats of ``seat``'s team, lower first."""
    return (seat % 2, seat % 2 + 2)


# --- state --------------------------------------------------------------------------------------


class State(msgspec.Struct, frozen=True):
    """Pawns (location codes), hands, piles, the deal cycle and the seat to play."""

    pawns: tuple[int, ...]
    hands: tuple[tuple[str, ...], ...]
    pile: tuple[str, ...]
    discard: tuple[str, ...] = ()
    phase: str = "deal"
    """``deal``, ``exchange`` or ``play``."""
    first_dealer: int = 0
    deals: int = 0
    """Deals made so far; the dealer changes every three."""
    turn: int = NOWHERE
    given: tuple[str, ...] = ("", "", "", "")
    """Exchange cards chosen so far in this deal (``""`` = not yet), by giver."""
    length: int = 15
    reshuffle: str = "every_deal"
    partner_capture: bool = True
    finished: bool = False
    winners: tuple[int, ...] = ()


def _sorted_cards(cards: Any) -> tuple[str, ...]:
    return sorted_by(CARD_RANK, cards)


def _without(cards: tuple[str, ...], taken: tuple[str, ...]) -> tuple[str, ...]:
    left = list(cards)
    for card in taken:
        left.remove(card)
    return tuple(left)


def setup(options: dict[str, Any], seats: int) -> State:
    """All pawns in their circles, the whole deck in the draw pile, the first deal due."""
    opts = parse_options(NAME, Options, options)
    check_players(NAME, seats, MIN_PLAYERS, MAX_PLAYERS)
    length = opts.section_length
    return State(
        pawns=(geometry(length).circle,) * (SEATS * PAWNS),
        hands=((),) * SEATS,
        pile=_deck(opts.deck_counts, opts.reshuffle),
        first_dealer=opts.first_dealer,
        length=length,
        reshuffle=opts.reshuffle,
        partner_capture=opts.partner_capture,
    )


def _deck(counts: dict[Card, int], reshuffle: str) -> tuple[str, ...]:
    """The deck of ``deck_counts`` (the whole composition: unlisted types have no copies)."""
    least = HAND * SEATS * (DEALS_PER_DEALER if reshuffle == "per_dealer" else 1)
    total = sum(counts.values())
    if total < least:
        raise BadSetup(
            f"deck_counts: {total} cards are too few; reshuffle {reshuffle!r} needs {least}"
        )
    return tuple(card for card in CARDS for _ in range(counts.get(card, 0)))


# --- deal cycle ---------------------------------------------------------------------------------


def dealer(state: State) -> int:
    """The dealer of the current deal (or of the next one, between deals)."""
    made = state.deals - 1 if state.phase != "deal" else state.deals
    return (state.first_dealer + made // DEALS_PER_DEALER) % SEATS


def _needs_shuffle(state: State) -> bool:
    if not state.discard:
        return False
    fresh = state.reshuffle == "every_deal" or state.deals % DEALS_PER_DEALER == 0
    return fresh or len(state.pile) < HAND * SEATS


def _next_turn(hands: tuple[tuple[str, ...], ...], after: int) -> int:
    """The next seat clockwise (``after`` itself last) still holding cards, or NOWHERE."""
    for k in range(1, SEATS + 1):
        seat = (after + k) % SEATS
        if hands[seat]:
            return seat
    return NOWHERE


def _after_turn(state: State, hands: tuple[tuple[str, ...], ...], seat: int) -> State:
    turn = _next_turn(hands, seat)
    phase = "play" if turn != NOWHERE else "deal"
    return replace(state, hands=hands, turn=turn, phase=phase)


def _board(state: State) -> Board:
    return Board(geometry(state.length), list(state.pawns), state.partner_capture)


def card_moves(state: State, seat: int, card: str) -> list[Move]:
    """Every legal move of ``seat`` with ``card`` in this position (whatever its hand)."""
    return partners_board.card_moves(_board(state), seat, card)


@lru_cache(maxsize=256)
def _plays(state: State) -> tuple[Move, ...]:
    """Every legal move of the seat to play, card by card in card order (memoised: to_act,
    automatic, legal_moves and decide all ask for the same state)."""
    if state.finished or state.phase != "play":
        return ()
    seat = state.turn
    return tuple(
        move for card in dict.fromkeys(state.hands[seat]) for move in card_moves(state, seat, card)
    )


@lru_cache(maxsize=256)
def _stuck(state: State) -> bool:
    """Whether the seat to play has no legal move: each of its cards is asked until one has
    (the 7, whose splits are the costliest to search, last)."""
    seat, board = state.turn, _board(state)
    cards = sorted(dict.fromkeys(state.hands[seat]), key=lambda card: card == "SEVEN")
    return not any(partners_board.can_play(board, seat, card) for card in cards)


# --- plays, exchanges, hidden cards and the view's types ----------------------------------------


def _play(state: State, seat: int, move_id: str) -> list[Event]:
    """MovePlayed for a legal play, and GameFinished when it completes a team."""
    move = next((m for m in _plays(state) if m.id == move_id), None)
    if move is None:
        raise IllegalMove(explain(state, seat, move_id))
    played = MovePlayed(seat, move.id, move.uses, move.steps, move.effects)
    after = apply(state, played)
    board = _board(after)
    for side in (team(seat), team(seat + 1)):
        if all(board.done(colour) for colour in side):
            names = " and ".join(COLOURS[colour] for colour in side)
            return [played, GameFinished(side, f"{names} have all 8 pawns in their lanes")]
    return [played]


def _exchange(state: State, seat: int, move_id: str) -> CardExchanged:
    kind, _, card = move_id.partition(":")
    hand = state.hands[seat]
    if kind != "exchange" or card not in CARD_RANK:
        raise IllegalMove(f"move {move_id!r} is not an exchange: expected 'exchange:<card>'")
    if card not in hand:
        shown = ", ".join(hand)
        raise IllegalMove(f"move {move_id!r}: card {card!r} is not in the hand ({shown})")
    return CardExchanged(seat, card, partner(seat))


def redact(event: Event, viewer: Viewer) -> Event:
    """Other seats' dealt cards and exchanged cards hidden, except from their two partners."""
    if viewer == "referee":
        return event
    match event:
        case CardsDealt(seats=seats, hands=hands):
            shown = tuple(
                hand if seat == viewer else (HIDDEN,) * len(hand)
                for seat, hand in zip(seats, hands, strict=True)
            )
            return replace(event, hands=shown)
        case CardExchanged(seat=seat, to=to) if viewer not in (seat, to):
            return replace(event, card=HIDDEN)
    return event


def finished(state: State) -> dict[int, int]:
    """Finished pawns per seat: a pawn is finished when it and every deeper square of its lane
    are filled (the zone fills from the innermost square, Lane 4)."""
    names, counts = geometry(state.length).names, {}
    for seat in range(SEATS):
        at = {names[loc] for loc in state.pawns[seat * PAWNS : (seat + 1) * PAWNS]}
        open_square = next((k for k in range(LANE, 0, -1) if f"lane:{k}" not in at), 0)
        if open_square < LANE:
            counts[seat] = LANE - open_square
    return counts


class Exchange(msgspec.Struct, frozen=True):
    """A card in flight to a partner: the card for the two partners, ``?`` for others, null
    while not chosen."""

    seat: int
    to: int
    card: str | None


class PartnersView(model.View, frozen=True, kw_only=True, tag=NAME):
    """partners' view: teams, finished seats, the deal cycle, hands and the exchange."""

    colours: list[str]
    teams: list[list[int]]
    done: list[int]
    phase: str
    dealer: int
    deals: int
    turn: int | None
    hands: list[Hand]
    exchange: list[Exchange] | None
    draw_pile: int
    discard: list[str]


def _exchange_view(state: State, viewer: Viewer) -> list[Exchange]:
    """Each seat's card in flight: the card for its two partners, ``?`` for others."""
    shown = []
    for seat, card in enumerate(state.given):
        to = partner(seat)
        if card and viewer not in ("referee", seat, to):
            card = HIDDEN
        shown.append(Exchange(seat, to, card or None))
    return shown


# --- the rule set surface -----------------------------------------------------------------------


class Partners:
    """partners' turn as named hooks (the protocol functions)."""

    def to_act(self, state: State) -> list[Pending]:
        """The dealer (deal), every seat yet to choose (exchange) or the seat to play."""
        if state.finished or self.automatic(state):
            return []
        if state.phase == "deal":
            return [Pending(dealer(state), "deal")]
        if state.phase == "exchange":
            return [Pending(seat, "exchange") for seat in range(SEATS) if not state.given[seat]]
        return [Pending(state.turn, "move")]

    def legal_moves(self, state: State, seat: int) -> list[Move]:
        """``deal`` for the dealer, ``exchange:<card>`` per distinct card, or the plays."""
        for pending in self.to_act(state):
            if pending.seat != seat:
                continue
            if pending.kind == "deal":
                return [chance_move(pending)]
            if pending.kind == "exchange":
                cards = dict.fromkeys(state.hands[seat])
                return [Move(f"exchange:{card}", seat, card) for card in cards]
            return list(_plays(state))
        return []

    def chance(self, state: State) -> ChanceNeed | None:
        """Four cards to each seat, from the dealer's left round to the dealer, when a deal is
        due."""
        if state.finished or state.phase != "deal" or _needs_shuffle(state):
            return None
        first = dealer(state)
        seats = tuple((first + k) % SEATS for k in range(1, SEATS + 1))
        return Deal(pile=state.pile, seats=seats, count=HAND)

    def automatic(self, state: State) -> list[Event]:
        """Gather and shuffle before a deal; lay down a hand that has no playable card."""
        if state.finished:
            return []
        if state.phase == "deal":
            if _needs_shuffle(state):
                return [DeckShuffled(cards=len(state.pile) + len(state.discard))]
            return []
        if state.phase == "play" and _stuck(state):
            seat = state.turn
            cards = ", ".join(state.hands[seat])
            why = f"no card has a legal move: {COLOURS[seat]} lays down {cards}"
            return [TurnPassed(seat, why)]
        return []

    def decide(self, state: State, seat: int, move_id: str) -> list[Event]:
        """The events of a decision: CardExchanged, or MovePlayed (and GameFinished on a win)."""
        if state.finished:
            raise GameOver(f"move {move_id!r}: the game is over")
        if state.phase == "play" and seat == state.turn:
            return _play(state, seat, move_id)
        pending = self.to_act(state)
        mine = [p for p in pending if p.seat == seat]
        if not mine:
            waiting = ", ".join(f"seat {p.seat + 1} ({p.kind})" for p in pending)
            waiting = waiting or "automatic events"
            why = f"move {move_id!r}: seat {seat + 1} is not to act; waiting for {waiting}"
            raise NotYourTurn(why)
        kind = mine[0].kind
        if kind == "deal":
            raise IllegalMove(f"move {move_id!r}: the deal is a chance step, made by the service")
        return [_exchange(state, seat, move_id)]

    def apply(self, state: State, event: Event) -> State:
        """The reducer."""
        match event:
            case CardsDealt(seats=seats, hands=dealt):
                hands = list(state.hands)
                for seat, hand in zip(seats, dealt, strict=True):
                    hands[seat] = _sorted_cards(hand)
                pile = _without(state.pile, tuple(card for hand in dealt for card in hand))
                return replace(
                    state, hands=tuple(hands), pile=pile, phase="exchange", deals=state.deals + 1
                )
            case CardExchanged(seat=seat, card=card):
                hands = list(state.hands)
                hands[seat] = _without(hands[seat], (card,))
                given = tuple(card if s == seat else g for s, g in enumerate(state.given))
                if not all(given):
                    return replace(state, hands=tuple(hands), given=given)
                for s in range(SEATS):
                    hands[s] = _sorted_cards((*hands[s], given[partner(s)]))
                first = (dealer(state) + 1) % SEATS
                return replace(
                    state, hands=tuple(hands), given=("",) * SEATS, phase="play", turn=first
                )
            case MovePlayed(seat=seat, uses=card, steps=steps, effects=effects):
                geo = geometry(state.length)
                pawns = list(state.pawns)
                for step in steps:
                    pawns[PIECE[step.piece]] = geo.codes[step.to]
                for effect in effects:
                    pawns[PIECE[effect.piece]] = geo.codes[effect.to]
                hands = list(state.hands)
                hands[seat] = _without(hands[seat], (str(card),))
                played = replace(state, pawns=tuple(pawns), discard=(*state.discard, str(card)))
                return _after_turn(played, tuple(hands), seat)
            case TurnPassed(seat=seat):
                hands = list(state.hands)
                laid, hands[seat] = hands[seat], ()
                return _after_turn(replace(state, discard=state.discard + laid), tuple(hands), seat)
            case DeckShuffled():
                pile = _sorted_cards(state.pile + state.discard)
                return replace(state, pile=pile, discard=())
            case GameFinished(winners=winners):
                return replace(state, finished=True, winners=winners)
        return state

    def view(self, state: State, viewer: Viewer) -> PartnersView:
        """The board, the deal cycle, and the hands as ``viewer`` may see them."""
        geo, board = geometry(state.length), _board(state)
        return PartnersView(
            status=status_of(state.finished),
            pieces=[
                Piece(NAMES[p], p // PAWNS, geo.names[loc]) for p, loc in enumerate(state.pawns)
            ],
            to_act=self.to_act(state),
            chance=None,
            winners=list(state.winners),
            colours=list(COLOURS),
            teams=[list(team(0)), list(team(1))],
            done=[seat for seat in range(SEATS) if board.done(seat)],
            phase=state.phase,
            dealer=dealer(state),
            deals=state.deals,
            turn=None if state.turn == NOWHERE else state.turn,
            hands=[hand_view(state.hands[seat], seat, viewer) for seat in range(SEATS)],
            exchange=_exchange_view(state, viewer) if state.phase == "exchange" else None,
            draw_pile=len(state.pile),
            discard=list(state.discard),
        )


RULES = Partners()
"""The rule set's one instance: the module's protocol functions are its bound methods."""
to_act = RULES.to_act
legal_moves = RULES.legal_moves
chance = RULES.chance
automatic = RULES.automatic
decide = RULES.decide
apply = RULES.apply
view = RULES.view


# --- why a move is illegal ----------------------------------------------------------------------


def explain(state: State, seat: int, move_id: str) -> str:
    """Why ``move_id`` is not a legal play of ``seat`` here (a lower-case sentence)."""
    card, sep, rest = move_id.partition(":")
    hand = state.hands[seat]
    if not sep or card not in CARD_RANK:
        known = ", ".join(CARDS)
        return f"move {move_id!r} is not a move id: expected '<card>:<from>><to>' ({known})"
    if card not in hand:
        return f"move {move_id!r}: card {card!r} is not in the hand ({', '.join(hand)})"
    legal = [move.id for move in _plays(state) if move.uses == card]
    reason = move_reason(_board(state), seat, card, rest)
    shown = listed(legal)
    fold = "" if _plays(state) else "; no card has a legal move, so the hand is laid down"
    if reason:
        return f"move {move_id!r} is not legal: {reason}; legal moves with {card!r}: {shown}{fold}"
    return f"move {move_id!r} is not legal; legal moves with {card!r}: {shown}{fold}"
