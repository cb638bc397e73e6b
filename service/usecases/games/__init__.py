"""Games: the repository of each game's projection, its commands and queries, what each caller
sees, records, summaries, listings and the rule sets as callers read them."""
