"""Registered players and the apps (frontends) that vouch for their own users: each a stream
of events folded by a pure reducer (``events``, ``state``), and the rules a handle or an app's
name must follow (``handles``)."""
