"""Ratings and standings: derived rows kept from the games' summaries as games finish."""
