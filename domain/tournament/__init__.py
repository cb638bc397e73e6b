"""Tournaments: a stream of events folded by a pure reducer (``events``, ``state``), the
pairings of players at tables of several seats (``pairing``, ``seats``) and the standings
(``standings``)."""
