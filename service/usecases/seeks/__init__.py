"""Quick play: seeks posted by players and guests, matched into tables by shape (rule set,
players, rated, options), expired, seated with bots after a wait (``seeks.py``), each
shape one event stream (``log.py``) folded by ``domain.seeks``."""
