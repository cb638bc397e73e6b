"""The use cases: the service's commands and queries over the event store, the only code that
touches it. A write finds the game in the repository, identifies the caller, lets the referee
core judge the command and appends the verdict; a read renders the game for its caller. May
import ``service.core``, ``service.board``, ``domain`` and ``eventstore``.
"""
