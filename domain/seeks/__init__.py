"""Quick play, pure: seeks of one shape (rule set, players, rated, options) as an event
stream (``events``), folded into the seeks still waiting (``book``), and the matcher that says,
given those and the time, which seeks expire and which sit at a table (``matching``).
"""
