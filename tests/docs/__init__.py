"""The README and the manual: their samples run, their generated pages are current."""
