"""Server-side bots: the driver that plays every seat a bot holds."""
