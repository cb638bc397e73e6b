"""The use cases over one store, wired together: what the app serves, and what tests and
benchmarks drive without HTTP."""

from __future__ import annotations

from eventstore import EventStore, utcnow
from service.clock import Clock
from service.usecases.analysis.analyses import Analyses
from service.usecases.analysis.hints import HintGiver
from service.usecases.games import summaries
from service.usecases.games.commands import Commands
from service.usecases.games.figures import Figures
from service.usecases.games.queries import Queries
from service.usecases.games.repository import MAX_LIVE_GAMES, Repository
from service.usecases.tournaments.tournaments import Tournaments
from service.usecases.writer import Writer


class UseCases:
    """A repository and the commands and queries over it (one process's view of a store),
    all on the clock ``now`` (which should be the store's too: ``service.clock``), with the
    calls tests and benchmarks use most at hand. Games without a summary (a database written
    before summaries existed) are summarised from their logs first; the tournaments' results
    follower catches up with what finished while no process ran."""

    def __init__(
        self,
        store: EventStore,
        max_live: int = MAX_LIVE_GAMES,
        now: Clock = utcnow,
        analysis_workers: int = 1,
        analyses_per_client: int = 1,
        bot_games_per_owner: int = 0,
    ):
        self.store = store
        summaries.fill(store)
        self.writer = Writer(store)
        self.games = Repository(self.writer, max_live)
        self.commands = Commands(self.games, now, bot_games_per_owner)
        self.queries = Queries(self.games, now)
        self.tournaments = Tournaments(self.commands)
        self.writer.followers.append(self.tournaments.results.follow)
        self.analyses = Analyses(self.games, now, analysis_workers, analyses_per_client)
        self.hints = HintGiver(self.games, self.commands)
        self.figures = Figures(self.games, self.commands.moves, now)
        self.create = self.commands.create
        self.play = self.commands.play
        self.play_async = self.commands.play_async
        self.undo = self.commands.undo
        self.game = self.open = self.games.game  # the repository's one way to a game
        self.replay_at = self.games.replay_at
        self.live = self.games.live
