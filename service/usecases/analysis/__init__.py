"""Analysis as a read: a game's analysis, kept beside its log, and a seat's hints."""
