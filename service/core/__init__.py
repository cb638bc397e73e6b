"""The referee core: pure functions from (the game so far, who acts, a command) to the events
that command causes, or a refusal that says why not.

No store, no threads, no clock, no randomness and no web framework: live play, the import of a
record and its verification all run this same code, so they cannot disagree. May import
``domain`` only.
"""
