"""Registered players and apps: their streams (``folds``), keys (``keys``), the players'
book (``book``: register, rotate, retire, authenticate, an app's players), the apps
(``apps``), a player's record and its offline check (``records``), and the routes' bodies
(``wire``)."""
