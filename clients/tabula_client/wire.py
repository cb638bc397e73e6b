"""The API's wire types, generated from openapi/openapi.json by ``tabula_client.codegen``.

Do not edit: run ``make client-models`` (a test fails when this file is stale).
"""

from __future__ import annotations

from typing import Any, Literal, TypeAlias

import msgspec

from tabula_client.mixins import ViewMixin


class EventOutBase(msgspec.Struct, frozen=True, kw_only=True, tag_field='type'):
    """What every ``EventOut`` variant has."""

    at: str
    by: int | str
    game_id: str
    hash: str
    prev_hash: str
    version: int

    @property
    def type(self) -> str:
        """The tag telling the variants apart."""
        return str(self.__struct_config__.tag)


class TournamentEventOutBase(msgspec.Struct, frozen=True, kw_only=True, tag_field='type'):
    """What every ``TournamentEventOut`` variant has."""

    at: str
    by: int | str
    hash: str
    prev_hash: str
    tournament_id: str
    version: int

    @property
    def type(self) -> str:
        """The tag telling the variants apart."""
        return str(self.__struct_config__.tag)


class GameViewBase(ViewMixin, msgspec.Struct, frozen=True, kw_only=True, tag_field='ruleset'):
    """What every ``GameView`` variant has."""

    chance: Outcome | None = None
    chance_mode: str = 'server'
    clock: ClockView | None = None
    game_id: str = ''
    options: dict[str, Any] = {}
    pieces: list[Piece] = []
    rematch: str | None = None
    rematch_of: str | None = None
    seats: list[SeatView] = []
    seed: str | None = None
    seed_commitment: str = ''
    status: Literal['gathering', 'active', 'finished', 'closed']
    table: TableView | None = None
    to_act: list[Pending] = []
    version: int = 0
    winners: list[int] = []

    @property
    def ruleset(self) -> str:
        """The tag telling the variants apart."""
        return str(self.__struct_config__.tag)


class Absence(msgspec.Struct, frozen=True, kw_only=True):
    """``Absence``."""

    after: float
    then: str


class Adjudicate(msgspec.Struct, frozen=True, kw_only=True):
    """``Adjudicate``."""

    expected_version: int | None = None
    kind: Literal['forfeit', 'penalty', 'agreement']
    reason: str
    seat: int | None = None
    winners: list[int] | None = None


class AdjudicatedData(msgspec.Struct, frozen=True, kw_only=True):
    """A referee's decision on record (forfeit, penalty, agreement), with its reason."""

    kind: str
    reason: str
    seat: int | None = None


class AdjudicatedEvent(EventOutBase, frozen=True, kw_only=True, tag='Adjudicated'):
    """``AdjudicatedEvent``."""

    data: AdjudicatedData


class Archive(msgspec.Struct, frozen=True, kw_only=True):
    """``Archive``."""

    format: str = 'tabula-archive'
    format_version: int = 1
    records: list[GameRecord] = []


class AskRematch(msgspec.Struct, frozen=True, kw_only=True):
    """``AskRematch``."""


class Audit(msgspec.Struct, frozen=True, kw_only=True):
    """``Audit``."""

    events: list[EventOut] = []
    game_id: str
    ruleset: str
    seed: str | None = None
    seed_commitment: str
    status: str
    verification: Verification


class BatchCreated(msgspec.Struct, frozen=True, kw_only=True):
    """``BatchCreated``."""

    games: list[Created] = []


class BotInfo(msgspec.Struct, frozen=True, kw_only=True):
    """``BotInfo``."""

    description: str
    name: str
    rulesets: list[str] = []
    version: int


class BotList(msgspec.Struct, frozen=True, kw_only=True):
    """``BotList``."""

    bots: list[BotInfo] = []


class BotsAfter(msgspec.Struct, frozen=True, kw_only=True):
    """``BotsAfter``."""

    level: str = 'greedy'
    seconds: float


class CancelTable(msgspec.Struct, frozen=True, kw_only=True):
    """``CancelTable``."""

    expected_version: int | None = None


class CardDrawnData(msgspec.Struct, frozen=True, kw_only=True):
    """``CardDrawnData``."""

    card: str
    seat: int


class CardDrawnEvent(EventOutBase, frozen=True, kw_only=True, tag='CardDrawn'):
    """``CardDrawnEvent``."""

    data: CardDrawnData


class CardExchangedData(msgspec.Struct, frozen=True, kw_only=True):
    """``CardExchangedData``."""

    card: str
    seat: int
    to: int


class CardExchangedEvent(EventOutBase, frozen=True, kw_only=True, tag='CardExchanged'):
    """``CardExchangedEvent``."""

    data: CardExchangedData


class CardsDealtData(msgspec.Struct, frozen=True, kw_only=True):
    """A deal by ``dealer``: ``hands[i]`` went to ``seats[i]``."""

    dealer: int
    hands: list[list[str]] = []
    seats: list[int] = []


class CardsDealtEvent(EventOutBase, frozen=True, kw_only=True, tag='CardsDealt'):
    """``CardsDealtEvent``."""

    data: CardsDealtData


class Clock(msgspec.Struct, frozen=True, kw_only=True):
    """``Clock``."""

    increment: float = 0.0
    on_timeout: str = 'random_move'
    per_decision: float | None = None
    total: float | None = None


class ClockView(msgspec.Struct, frozen=True, kw_only=True):
    """``ClockView``."""

    deadlines: dict[str, str] = {}
    increment: float
    on_timeout: str
    per_decision: float | None = None
    remaining: list[float | None] = []
    total: float | None = None


class CreateBatch(msgspec.Struct, frozen=True, kw_only=True):
    """``CreateBatch``."""

    games: list[CreateGame] = []


class CreateGame(msgspec.Struct, frozen=True, kw_only=True):
    """``CreateGame``."""

    absent: Absence | None = None
    allow_hints: bool = False
    allow_undo: bool = False
    auto_chance: bool = False
    chance: Literal['server', 'external'] = 'server'
    clock: Clock | None = None
    options: dict[str, Any] = {}
    rated: bool = True
    ruleset: Literal['ludo', 'parchis', 'parchis-2dice', 'partners', 'race35', 'sorry', 'sorry-hand']
    seats: list[SeatSpec] = []
    seed: str | None = None
    spectator_delay: SpectatorDelay | None = None
    tags: dict[str, str] = {}
    unlisted: bool = False


class CreateTournament(msgspec.Struct, frozen=True, kw_only=True):
    """``CreateTournament``."""

    bye_points: int | None = None
    chance: Literal['server', 'external'] = 'server'
    clock: Clock | None = None
    format: Literal['swiss', 'round-robin'] = 'swiss'
    name: str
    options: dict[str, Any] = {}
    players: list[PlayerSpec] = []
    points: list[int] = []
    rated: bool = True
    rounds: int | None = None
    ruleset: Literal['ludo', 'parchis', 'parchis-2dice', 'partners', 'race35', 'sorry', 'sorry-hand']
    seats_per_table: int = 4
    spectator_delay: SpectatorDelay | None = None


class Created(msgspec.Struct, frozen=True, kw_only=True):
    """``Created``."""

    id: str
    seed_commitment: str
    tokens: Tokens
    version: int


class Decision(msgspec.Struct, frozen=True, kw_only=True):
    """``Decision``."""

    best: str | None = None
    label: str | None = None
    loss: float
    seat: int
    version: int


class DeckShuffledData(msgspec.Struct, frozen=True, kw_only=True):
    """The discard pile became the draw pile (draws are uniform from the pile, so no order)."""

    cards: int


class DeckShuffledEvent(EventOutBase, frozen=True, kw_only=True, tag='DeckShuffled'):
    """``DeckShuffledEvent``."""

    data: DeckShuffledData


class DeclineInvitation(msgspec.Struct, frozen=True, kw_only=True):
    """``DeclineInvitation``."""

    expected_version: int | None = None


class DiceRolledData(msgspec.Struct, frozen=True, kw_only=True):
    """``DiceRolledData``."""

    dice: list[int] = []
    seat: int


class DiceRolledEvent(EventOutBase, frozen=True, kw_only=True, tag='DiceRolled'):
    """``DiceRolledEvent``."""

    data: DiceRolledData


class Effect(msgspec.Struct, frozen=True, kw_only=True):
    """``Effect``."""

    from_: str = msgspec.field(name='from')
    piece: str
    to: str = ''
    why: str = ''


class EffectData(msgspec.Struct, frozen=True, kw_only=True):
    """What a move does to a piece besides its own steps (bump, slide, swap)."""

    from_: str = msgspec.field(name='from')
    piece: str
    to: str = ''
    why: str = ''


class EventPage(msgspec.Struct, frozen=True, kw_only=True):
    """``EventPage``."""

    events: list[EventOut] = []
    version: int


class Exchange(msgspec.Struct, frozen=True, kw_only=True):
    """``Exchange``."""

    card: str | None = None
    seat: int
    to: int


class GameAnalysis(msgspec.Struct, frozen=True, kw_only=True):
    """``GameAnalysis``."""

    decisions: list[Decision] = []
    game_id: str
    lost: list[float] = []
    luck: list[float] = []
    method: str
    positions: list[Position] = []
    ruleset: str
    seats: int
    version: int


class GameCreatedData(msgspec.Struct, frozen=True, kw_only=True):
    """Every setting of a game, so its log alone says how it was played (and an exported record imports with nothing lost)."""

    absent: dict[str, Any] | None = None
    allow_hints: bool = False
    allow_undo: bool = False
    auto_chance: bool = False
    bots: list[SeatBotData] = []
    chance: str = 'server'
    clock: dict[str, Any] | None = None
    invites: list[SeatPlayerData] = []
    listed: bool = True
    open_seats: list[int] = []
    options: dict[str, Any] = {}
    players: list[SeatPlayerData] = []
    rated: bool = True
    rematch_of: str = ''
    ruleset: str
    ruleset_version: int = 1
    seats: list[str] = []
    seed_commitment: str = ''
    spectator_delay: dict[str, Any] | None = None
    tags: dict[str, str] = {}


class GameCreatedEvent(EventOutBase, frozen=True, kw_only=True, tag='GameCreated'):
    """``GameCreatedEvent``."""

    data: GameCreatedData


class GameFinishedData(msgspec.Struct, frozen=True, kw_only=True):
    """``GameFinishedData``."""

    reason: str = ''
    winners: list[int] = []


class GameFinishedEvent(EventOutBase, frozen=True, kw_only=True, tag='GameFinished'):
    """``GameFinishedEvent``."""

    data: GameFinishedData


class GameList(msgspec.Struct, frozen=True, kw_only=True):
    """``GameList``."""

    games: list[GameSummary] = []
    next: str | None = None


class GameRecord(msgspec.Struct, frozen=True, kw_only=True):
    """``GameRecord``."""

    chance: str
    events: list[EventOut] = []
    format: str = 'tabula-game-record'
    format_version: int = 1
    game_id: str
    options: dict[str, Any] = {}
    ruleset: str
    ruleset_version: int
    seats: list[str] = []
    seed: str | None = None
    seed_commitment: str


class GameSummary(msgspec.Struct, frozen=True, kw_only=True):
    """``GameSummary``."""

    created_at: str
    finished_at: str | None = None
    id: str
    pieces_home: dict[str, int] = {}
    rated: bool = True
    rematch: str | None = None
    rematch_of: str | None = None
    ruleset: str
    seats: list[str] = []
    status: str
    tags: dict[str, str] = {}
    version: int
    winners: list[str] = []


class Hand(msgspec.Struct, frozen=True, kw_only=True):
    """``Hand``."""

    cards: list[str] | None = None
    count: int | None = None
    seat: int


class Health(msgspec.Struct, frozen=True, kw_only=True):
    """``Health``."""

    status: str = 'ok'


class Hint(msgspec.Struct, frozen=True, kw_only=True):
    """``Hint``."""

    chance: float
    loss: float
    move: Move


class Hints(msgspec.Struct, frozen=True, kw_only=True):
    """``Hints``."""

    game_id: str
    hints: list[Hint] = []
    judged_at: int
    method: str
    seat: int
    version: int


class HintsShownData(msgspec.Struct, frozen=True, kw_only=True):
    """``seat`` was shown its legal moves ranked by the chance each keeps, judged at ``version`` by the analysis ``method``; it changes nothing in the game."""

    method: str = ''
    seat: int
    version: int


class HintsShownEvent(EventOutBase, frozen=True, kw_only=True, tag='HintsShown'):
    """``HintsShownEvent``."""

    data: HintsShownData


class Invitation(msgspec.Struct, frozen=True, kw_only=True):
    """``Invitation``."""

    created_at: str
    game_id: str
    rated: bool
    rematch_of: str | None = None
    ruleset: str
    seat: int


class InvitationDeclinedData(msgspec.Struct, frozen=True, kw_only=True):
    """The player invited to ``seat`` declined (or, with ``reason`` ``expired``, the invitation ran out of time): the seat is open."""

    reason: str = ''
    seat: int


class InvitationDeclinedEvent(EventOutBase, frozen=True, kw_only=True, tag='InvitationDeclined'):
    """``InvitationDeclinedEvent``."""

    data: InvitationDeclinedData


class JoinTable(msgspec.Struct, frozen=True, kw_only=True):
    """``JoinTable``."""

    name: str = ''
    seat: int | None = None


class Joined(msgspec.Struct, frozen=True, kw_only=True):
    """``Joined``."""

    seat: int
    token: str | None = None
    version: int


class KeyRequest(msgspec.Struct, frozen=True, kw_only=True):
    """``KeyRequest``."""


class Leaderboard(msgspec.Struct, frozen=True, kw_only=True):
    """``Leaderboard``."""

    next: str | None = None
    ratings: list[Rating] = []
    ruleset: str


class LeaveTable(msgspec.Struct, frozen=True, kw_only=True):
    """``LeaveTable``."""

    expected_version: int | None = None


class LegalMoves(msgspec.Struct, frozen=True, kw_only=True):
    """``LegalMoves``."""

    moves: list[Move] = []
    version: int


class Lobby(msgspec.Struct, frozen=True, kw_only=True):
    """``Lobby``."""

    next: str | None = None
    tables: list[LobbyTable] = []


class LobbySeat(msgspec.Struct, frozen=True, kw_only=True):
    """``LobbySeat``."""

    invite: str | None = None
    name: str
    open: bool
    seat: int


class LobbyTable(msgspec.Struct, frozen=True, kw_only=True):
    """``LobbyTable``."""

    created_at: str
    id: str
    options: dict[str, Any] = {}
    players: int
    rated: bool
    ruleset: str
    seats: list[LobbySeat] = []


class LudoView(GameViewBase, frozen=True, kw_only=True, tag='ludo'):
    """``LudoView``."""

    colours: list[str] = []
    sixes_in_a_row: int
    tries_left: int


class Me(msgspec.Struct, frozen=True, kw_only=True):
    """``Me``."""

    games: list[GameSummary] = []
    handle: str
    invitations: list[Invitation] = []
    ratings: list[MyRating] = []
    tournaments: list[dict[str, Any]] = []


class Move(msgspec.Struct, frozen=True, kw_only=True):
    """``Move``."""

    effects: list[Effect] = []
    id: str
    seat: int
    steps: list[Step] = []
    uses: str | list[int] | None = None


class MovePlayedData(msgspec.Struct, frozen=True, kw_only=True):
    """A move; ``auto`` when the rules played it with no choice (race35), so undo skips it."""

    auto: bool = False
    effects: list[EffectData] = []
    move: str
    seat: int
    steps: list[StepData] = []
    uses: str | list[int] | None = None


class MovePlayedEvent(EventOutBase, frozen=True, kw_only=True, tag='MovePlayed'):
    """``MovePlayedEvent``."""

    data: MovePlayedData


class MoveUndoneData(msgspec.Struct, frozen=True, kw_only=True):
    """Reverts the decision stored at version ``reverts`` and everything after it."""

    reason: str = ''
    reverts: int


class MoveUndoneEvent(EventOutBase, frozen=True, kw_only=True, tag='MoveUndone'):
    """``MoveUndoneEvent``."""

    data: MoveUndoneData


class MyRating(msgspec.Struct, frozen=True, kw_only=True):
    """``MyRating``."""

    games: int
    mu: float
    ordinal: float
    rank: int
    ruleset: str
    sigma: float
    wins: int


class MyTable(msgspec.Struct, frozen=True, kw_only=True):
    """``MyTable``."""

    bye: bool
    game_id: str | None = None
    game_status: str | None = None
    name: str
    round: int
    seat: int | None = None
    seat_token: str | None = None
    status: str
    table: int | None = None
    tournament_id: str
    withdrawn: bool


class NewKey(msgspec.Struct, frozen=True, kw_only=True):
    """``NewKey``."""

    key: str


class NewSeek(msgspec.Struct, frozen=True, kw_only=True):
    """``NewSeek``."""

    id: str
    secret: str | None = None


class Outcome(msgspec.Struct, frozen=True, kw_only=True):
    """``Outcome``."""

    card: str | None = None
    dice: list[int] | None = None


class PairRound(msgspec.Struct, frozen=True, kw_only=True):
    """``PairRound``."""

    expected_version: int | None = None


class ParchisTwoDiceView(GameViewBase, frozen=True, kw_only=True, tag='parchis-2dice'):
    """``ParchisTwoDiceView``."""

    bonus_pending: list[int] = []
    colours: list[str] = []
    dice_left: list[int] = []
    doubles_in_a_row: int


class ParchisView(GameViewBase, frozen=True, kw_only=True, tag='parchis'):
    """``ParchisView``."""

    bonus_pending: list[int] = []
    colours: list[str] = []
    dice_left: list[int] = []
    sixes_in_a_row: int


class PartnersView(GameViewBase, frozen=True, kw_only=True, tag='partners'):
    """``PartnersView``."""

    colours: list[str] = []
    dealer: int
    deals: int
    discard: list[str] = []
    done: list[int] = []
    draw_pile: int
    exchange: list[Exchange] | None = None
    hands: list[Hand] = []
    phase: str
    teams: list[list[int]] = []
    turn: int | None = None


class Pending(msgspec.Struct, frozen=True, kw_only=True):
    """``Pending``."""

    kind: Literal['move', 'exchange', 'discard', 'draw', 'roll', 'deal']
    seat: int


class Piece(msgspec.Struct, frozen=True, kw_only=True):
    """``Piece``."""

    at: str
    id: str
    seat: int


class PlayMove(msgspec.Struct, frozen=True, kw_only=True):
    """``PlayMove``."""

    expected_version: int | None = None
    move: str | None = None
    seat: int | None = None
    steps: list[Step] | None = None


class Played(msgspec.Struct, frozen=True, kw_only=True):
    """``Played``."""

    events: list[EventOut] = []
    legal_moves: list[Move] = []
    state: GameView | None = None
    version: int


class Player(msgspec.Struct, frozen=True, kw_only=True):
    """``Player``."""

    name: str
    rulesets: list[PlayerRuleset] = []


class PlayerEventOut(msgspec.Struct, frozen=True, kw_only=True):
    """``PlayerEventOut``."""

    at: str
    by: int | str
    data: dict[str, Any] = {}
    hash: str
    prev_hash: str
    stream_id: str
    type: str
    version: int


class PlayerOut(msgspec.Struct, frozen=True, kw_only=True):
    """``PlayerOut``."""

    name: str
    player: bool
    withdrawn: bool


class PlayerRecord(msgspec.Struct, frozen=True, kw_only=True):
    """``PlayerRecord``."""

    events: list[PlayerEventOut] = []
    format: str = 'tabula-player-record'
    format_version: int = 1
    handle: str


class PlayerRegisteredData(msgspec.Struct, frozen=True, kw_only=True):
    """A player of the tournament. ``player``: the name is a registered player's handle (as registered), whose key plays her tables; no token of the tournament acts for her (left out for a guest, so logs of guests hash as before)."""

    name: str
    player: bool = False


class PlayerRegisteredEvent(TournamentEventOutBase, frozen=True, kw_only=True, tag='PlayerRegistered'):
    """``PlayerRegisteredEvent``."""

    data: PlayerRegisteredData


class PlayerRuleset(msgspec.Struct, frozen=True, kw_only=True):
    """``PlayerRuleset``."""

    history: list[RatedGame] = []
    next: str | None = None
    rating: Rating
    ruleset: str


class PlayerSpec(msgspec.Struct, frozen=True, kw_only=True):
    """``PlayerSpec``."""

    bot: str | None = None
    name: str = ''
    player: str | None = None


class PlayerStanding(msgspec.Struct, frozen=True, kw_only=True):
    """``PlayerStanding``."""

    byes: int
    games: int
    name: str
    opponents_points: int
    pieces_home: int
    points: int
    rank: int
    wins: int
    withdrawn: bool


class PlayerToken(msgspec.Struct, frozen=True, kw_only=True):
    """``PlayerToken``."""

    name: str
    token: str | None = None


class PlayerWithdrawnData(msgspec.Struct, frozen=True, kw_only=True):
    """The player is paired no more; a game in progress is the director's to adjudicate."""

    name: str
    reason: str = ''


class PlayerWithdrawnEvent(TournamentEventOutBase, frozen=True, kw_only=True, tag='PlayerWithdrawn'):
    """``PlayerWithdrawnEvent``."""

    data: PlayerWithdrawnData


class Position(msgspec.Struct, frozen=True, kw_only=True):
    """``Position``."""

    chances: list[float] = []
    half_width: list[float] = []
    kind: str
    luck: list[float] | None = None
    seat: int
    version: int


class PostChance(msgspec.Struct, frozen=True, kw_only=True):
    """``PostChance``."""

    card: str | None = None
    dice: list[int] | None = None
    expected_version: int | None = None
    hands: list[list[str]] | None = None


class PostSeek(msgspec.Struct, frozen=True, kw_only=True):
    """``PostSeek``."""

    bots_after: BotsAfter | None = None
    name: str = ''
    options: dict[str, Any] = {}
    players: int
    rated: bool = False
    ruleset: Literal['ludo', 'parchis', 'parchis-2dice', 'partners', 'race35', 'sorry', 'sorry-hand']


class Problem(msgspec.Struct, frozen=True, kw_only=True):
    """``Problem``."""

    allowed: list[Any] | None = None
    detail: str
    header: str | None = None
    instance: str
    limit: int | None = None
    parameter: str | None = None
    pointer: str | None = None
    setting: str | None = None
    status: int
    title: str
    type: str


class Progress(msgspec.Struct, frozen=True, kw_only=True):
    """``Progress``."""

    done: int
    game_id: str
    status: str = 'running'
    total: int
    version: int


class Race35View(GameViewBase, frozen=True, kw_only=True, tag='race35'):
    """``Race35View``."""

    statuses: list[Status] = []


class RatedGame(msgspec.Struct, frozen=True, kw_only=True):
    """``RatedGame``."""

    finished_at: str
    game_id: str
    mu: float
    ordinal: float
    place: int
    places: int
    sigma: float


class Rating(msgspec.Struct, frozen=True, kw_only=True):
    """``Rating``."""

    games: int
    mu: float
    name: str
    ordinal: float
    rank: int
    sigma: float
    wins: int


class Register(msgspec.Struct, frozen=True, kw_only=True):
    """``Register``."""

    handle: str


class Registered(msgspec.Struct, frozen=True, kw_only=True):
    """``Registered``."""

    handle: str
    key: str


class Rematched(msgspec.Struct, frozen=True, kw_only=True):
    """``Rematched``."""

    id: str
    seat: int | None = None
    token: str | None = None


class RoundClosedData(msgspec.Struct, frozen=True, kw_only=True):
    """Every table of the round has finished."""

    round: int


class RoundClosedEvent(TournamentEventOutBase, frozen=True, kw_only=True, tag='RoundClosed'):
    """``RoundClosedEvent``."""

    data: RoundClosedData


class RoundOut(msgspec.Struct, frozen=True, kw_only=True):
    """``RoundOut``."""

    byes: list[str] = []
    closed: bool
    round: int
    tables: list[TableOut] = []


class RoundPairedData(msgspec.Struct, frozen=True, kw_only=True):
    """A round's tables, each a game created for it, and who sits out."""

    byes: list[str] = []
    round: int
    tables: list[TableData] = []


class RoundPairedEvent(TournamentEventOutBase, frozen=True, kw_only=True, tag='RoundPaired'):
    """``RoundPairedEvent``."""

    data: RoundPairedData


class RoundPairedReply(msgspec.Struct, frozen=True, kw_only=True):
    """``RoundPairedReply``."""

    round: RoundOut
    version: int


class RuleSetDetail(msgspec.Struct, frozen=True, kw_only=True):
    """``RuleSetDetail``."""

    max_players: int
    min_players: int
    name: str
    options: dict[str, Any] = {}
    options_schema: dict[str, Any] = {}
    rules: str
    version: int


class RuleSetInfo(msgspec.Struct, frozen=True, kw_only=True):
    """``RuleSetInfo``."""

    max_players: int
    min_players: int
    name: str
    options: dict[str, Any] = {}
    version: int


class RuleSetList(msgspec.Struct, frozen=True, kw_only=True):
    """``RuleSetList``."""

    rulesets: list[RuleSetInfo] = []


class SeatBotData(msgspec.Struct, frozen=True, kw_only=True):
    """A seat a bot plays from the start: its level and the version of that level's play."""

    level: str
    seat: int
    version: int


class SeatHandedOverData(msgspec.Struct, frozen=True, kw_only=True):
    """A seat handed to a bot (``bot`` its level, ``version`` that level's version) or, with ``bot`` empty, back to its player."""

    bot: str = ''
    reason: str = ''
    seat: int
    version: int = 0


class SeatHandedOverEvent(EventOutBase, frozen=True, kw_only=True, tag='SeatHandedOver'):
    """``SeatHandedOverEvent``."""

    data: SeatHandedOverData


class SeatLeftData(msgspec.Struct, frozen=True, kw_only=True):
    """Whoever took ``seat`` by joining left it before the table started: it is open again."""

    seat: int


class SeatLeftEvent(EventOutBase, frozen=True, kw_only=True, tag='SeatLeft'):
    """``SeatLeftEvent``."""

    data: SeatLeftData


class SeatPlayerData(msgspec.Struct, frozen=True, kw_only=True):
    """A seat that belongs to a registered player: only that player acts for it."""

    handle: str
    seat: int


class SeatSpec(msgspec.Struct, frozen=True, kw_only=True):
    """``SeatSpec``."""

    bot: str | None = None
    invite: str | None = None
    name: str = ''
    open: bool = False
    player: str | None = None


class SeatTakenData(msgspec.Struct, frozen=True, kw_only=True):
    """A gathering table's open or invited seat taken: by the registered player ``player`` (her handle: the seat is hers from now on) or by a guest named ``name``, who holds the seat's token whose sha256 hex is ``digest`` (a 256-bit token: its digest is safe to publish)."""

    digest: str = ''
    name: str
    player: str = ''
    seat: int


class SeatTakenEvent(EventOutBase, frozen=True, kw_only=True, tag='SeatTaken'):
    """``SeatTakenEvent``."""

    data: SeatTakenData


class SeatToBot(msgspec.Struct, frozen=True, kw_only=True):
    """``SeatToBot``."""

    bot: str
    expected_version: int | None = None
    reason: str = ''


class SeatView(msgspec.Struct, frozen=True, kw_only=True):
    """``SeatView``."""

    absent_until: str | None = None
    bot: str | None = None
    colour: str
    invite: str | None = None
    name: str
    open: bool = False
    present: bool = False
    seat: int


class SeedRevealedData(msgspec.Struct, frozen=True, kw_only=True):
    """``SeedRevealedData``."""

    seed: str


class SeedRevealedEvent(EventOutBase, frozen=True, kw_only=True, tag='SeedRevealed'):
    """``SeedRevealedEvent``."""

    data: SeedRevealedData


class SeekView(msgspec.Struct, frozen=True, kw_only=True):
    """``SeekView``."""

    expires_at: str | None = None
    game_id: str | None = None
    id: str
    players: int
    rated: bool
    ruleset: str
    seat: int | None = None
    status: Literal['waiting', 'matched', 'expired', 'cancelled']


class SorryHandView(GameViewBase, frozen=True, kw_only=True, tag='sorry-hand'):
    """``SorryHandView``."""

    colours: list[str] = []
    discard: list[str] = []
    draw_pile: int
    extra_play: bool
    hands: list[Hand] = []
    turn: int


class SorryView(GameViewBase, frozen=True, kw_only=True, tag='sorry'):
    """``SorryView``."""

    colours: list[str] = []
    discard: list[str] = []
    draw_pile: int
    turn: int


class SpectatorDelay(msgspec.Struct, frozen=True, kw_only=True):
    """``SpectatorDelay``."""

    moves: int | None = None
    seconds: int | None = None


class Standing(msgspec.Struct, frozen=True, kw_only=True):
    """``Standing``."""

    games: int
    name: str
    pieces_home: int
    wins: int


class Standings(msgspec.Struct, frozen=True, kw_only=True):
    """``Standings``."""

    standings: list[Standing] = []
    tag: str | None = None


class StartTable(msgspec.Struct, frozen=True, kw_only=True):
    """``StartTable``."""

    bots: str | None = None
    expected_version: int | None = None


class Status(msgspec.Struct, frozen=True, kw_only=True):
    """``Status``."""

    seat: int
    skip_turns: int
    waiting: bool


class Step(msgspec.Struct, frozen=True, kw_only=True):
    """``Step``."""

    from_: str = msgspec.field(name='from')
    piece: str
    to: str = ''


class StepData(msgspec.Struct, frozen=True, kw_only=True):
    """One piece's own movement."""

    from_: str = msgspec.field(name='from')
    piece: str
    to: str = ''


class TableClosedData(msgspec.Struct, frozen=True, kw_only=True):
    """A gathering table closed before it started (``reason``: ``cancelled`` by its referee, ``expired``): the game is over with no result."""

    reason: str


class TableClosedEvent(EventOutBase, frozen=True, kw_only=True, tag='TableClosed'):
    """``TableClosedEvent``."""

    data: TableClosedData


class TableData(msgspec.Struct, frozen=True, kw_only=True):
    """A table of a round: its game and its players in seat order."""

    game_id: str
    seats: list[str] = []
    table: int


class TableFinishedData(msgspec.Struct, frozen=True, kw_only=True):
    """A table's game ended: its winners and each player's pieces home, as the game's log says."""

    game_id: str
    pieces_home: dict[str, int] = {}
    round: int
    table: int
    winners: list[str] = []


class TableFinishedEvent(TournamentEventOutBase, frozen=True, kw_only=True, tag='TableFinished'):
    """``TableFinishedEvent``."""

    data: TableFinishedData


class TableOut(msgspec.Struct, frozen=True, kw_only=True):
    """``TableOut``."""

    game_id: str
    pieces_home: dict[str, int] = {}
    points: dict[str, int] = {}
    seats: list[str] = []
    status: Literal['active', 'finished']
    table: int
    winners: list[str] = []


class TableStartedData(msgspec.Struct, frozen=True, kw_only=True):
    """A gathering table starts: its last seat was taken, or its referee filled the open seats with ``bots``. The first chance and the clocks follow."""

    bots: list[SeatBotData] = []


class TableStartedEvent(EventOutBase, frozen=True, kw_only=True, tag='TableStarted'):
    """``TableStartedEvent``."""

    data: TableStartedData


class TableView(msgspec.Struct, frozen=True, kw_only=True):
    """``TableView``."""

    listed: bool
    reason: str | None = None


class TimeExpiredData(msgspec.Struct, frozen=True, kw_only=True):
    """A seat's clock ran out; what follows (a random move, a forfeit) are their own events."""

    consequence: str
    seat: int


class TimeExpiredEvent(EventOutBase, frozen=True, kw_only=True, tag='TimeExpired'):
    """``TimeExpiredEvent``."""

    data: TimeExpiredData


class Tokens(msgspec.Struct, frozen=True, kw_only=True):
    """``Tokens``."""

    referee: str
    seats: list[str | None] = []


class TournamentCreatedData(msgspec.Struct, frozen=True, kw_only=True):
    """Every setting of the tournament and of the games it creates. ``points[k]`` is what place k + 1 at a table scores (0 beyond the list); a bye scores ``bye_points``. ``rated`` and ``spectator_delay`` are handed to the games as they are."""

    bots: dict[str, str] = {}
    bye_points: int
    chance: str = 'server'
    clock: dict[str, Any] | None = None
    format: Literal['round-robin', 'swiss']
    least_per_table: int
    name: str
    options: dict[str, Any] = {}
    points: list[int] = []
    rated: bool = True
    rounds: int
    ruleset: str
    seats_per_table: int
    spectator_delay: dict[str, int] | None = None
    teams: bool = False


class TournamentCreatedEvent(TournamentEventOutBase, frozen=True, kw_only=True, tag='TournamentCreated'):
    """``TournamentCreatedEvent``."""

    data: TournamentCreatedData


class TournamentCreatedReply(msgspec.Struct, frozen=True, kw_only=True):
    """``TournamentCreatedReply``."""

    id: str
    tokens: TournamentTokens
    version: int


class TournamentList(msgspec.Struct, frozen=True, kw_only=True):
    """``TournamentList``."""

    next: str | None = None
    tournaments: list[TournamentListed] = []


class TournamentListed(msgspec.Struct, frozen=True, kw_only=True):
    """``TournamentListed``."""

    created_at: str
    format: str
    id: str
    name: str
    players: int
    round_count: int
    rounds_paired: int
    ruleset: str
    seats_per_table: int
    status: Literal['registering', 'active', 'finished']


class TournamentRecord(msgspec.Struct, frozen=True, kw_only=True):
    """``TournamentRecord``."""

    events: list[TournamentEventOut] = []
    format: str = 'tabula-tournament-record'
    format_version: int = 1
    games: list[GameRecord] = []
    tournament_id: str


class TournamentStandings(msgspec.Struct, frozen=True, kw_only=True):
    """``TournamentStandings``."""

    rounds_closed: int
    standings: list[PlayerStanding] = []
    status: str
    tournament_id: str


class TournamentTokens(msgspec.Struct, frozen=True, kw_only=True):
    """``TournamentTokens``."""

    director: str
    players: list[PlayerToken] = []


class TournamentView(msgspec.Struct, frozen=True, kw_only=True):
    """``TournamentView``."""

    bye_points: int
    format: str
    id: str
    name: str
    options: dict[str, Any] = {}
    players: list[PlayerOut] = []
    points: list[int] = []
    rated: bool
    round_count: int
    rounds: list[RoundOut] = []
    ruleset: str
    seats_per_table: int
    spectator_delay: dict[str, int] | None = None
    status: Literal['registering', 'active', 'finished']
    teams: bool
    version: int


class TurnPassedData(msgspec.Struct, frozen=True, kw_only=True):
    """``TurnPassedData``."""

    reason: str
    seat: int


class TurnPassedEvent(EventOutBase, frozen=True, kw_only=True, tag='TurnPassed'):
    """``TurnPassedEvent``."""

    data: TurnPassedData


class Undo(msgspec.Struct, frozen=True, kw_only=True):
    """``Undo``."""

    expected_version: int | None = None
    reason: str = ''


class Verification(msgspec.Struct, frozen=True, kw_only=True):
    """``Verification``."""

    chance_checked: bool
    events: int
    finished: bool = False
    first_bad: int | None = None
    reason: str | None = None
    valid: bool


class Withdraw(msgspec.Struct, frozen=True, kw_only=True):
    """``Withdraw``."""

    player: str
    reason: str = ''


EventOut: TypeAlias = AdjudicatedEvent | CardDrawnEvent | CardExchangedEvent | CardsDealtEvent | DeckShuffledEvent | DiceRolledEvent | GameCreatedEvent | GameFinishedEvent | HintsShownEvent | InvitationDeclinedEvent | MovePlayedEvent | MoveUndoneEvent | SeatHandedOverEvent | SeatLeftEvent | SeatTakenEvent | SeedRevealedEvent | TableClosedEvent | TableStartedEvent | TimeExpiredEvent | TurnPassedEvent
"""Tagged by ``type``: Adjudicated, CardDrawn, CardExchanged, CardsDealt, DeckShuffled, DiceRolled, GameCreated, GameFinished, HintsShown, InvitationDeclined, MovePlayed, MoveUndone, SeatHandedOver, SeatLeft, SeatTaken, SeedRevealed, TableClosed, TableStarted, TimeExpired, TurnPassed."""


TournamentEventOut: TypeAlias = PlayerRegisteredEvent | PlayerWithdrawnEvent | RoundClosedEvent | RoundPairedEvent | TableFinishedEvent | TournamentCreatedEvent
"""Tagged by ``type``: PlayerRegistered, PlayerWithdrawn, RoundClosed, RoundPaired, TableFinished, TournamentCreated."""


GameView: TypeAlias = LudoView | ParchisView | ParchisTwoDiceView | PartnersView | Race35View | SorryView | SorryHandView
"""Tagged by ``ruleset``: ludo, parchis, parchis-2dice, partners, race35, sorry, sorry-hand."""
