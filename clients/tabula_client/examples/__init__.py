"""Runnable examples of the client (``python -m tabula_client.examples.<name> --help``)."""
