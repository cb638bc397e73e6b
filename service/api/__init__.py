"""The HTTP edge: Litestar controllers, the dependencies and guards they use, problems, limits,
the OpenAPI additions and request logs. Handlers take the caller's token and a body and call
one use case; they never touch the store. May import ``service.usecases`` and ``service.core``.
"""
