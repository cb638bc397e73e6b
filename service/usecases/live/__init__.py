"""Live games: a connection's share of a game's log (the socket) and Server-Sent Events."""
