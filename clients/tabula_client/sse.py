"""Server-Sent Events: the ``text/event-stream`` format, parsed line by line (no I/O).

Follows the WHATWG rules: a blank line dispatches the message, ``:`` starts a comment
(keep-alives), ``field: value`` loses one leading space, ``data`` lines join with newlines,
and a message without data is not dispatched.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator

import msgspec


class Message(msgspec.Struct, frozen=True):
    """One dispatched server-sent event."""

    data: str
    event: str = "message"
    id: str | None = None
    retry: int | None = None


class Decoder:
    """Turns lines (without their line ends) into messages, one blank line at a time."""

    def __init__(self) -> None:
        self._data: list[str] = []
        self._event = ""
        self._id: str | None = None
        self._retry: int | None = None

    def feed(self, line: str) -> Message | None:
        """Take one line; the message it completes, if any."""
        line = line.rstrip("\r\n")
        if not line:
            return self._dispatch()
        if line.startswith(":"):
            return None
        field, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if field == "data":
            self._data.append(value)
        elif field == "event":
            self._event = value
        elif field == "id" and "\0" not in value:
            self._id = value
        elif field == "retry" and value.isdigit():
            self._retry = int(value)
        return None

    def _dispatch(self) -> Message | None:
        data, event = self._data, self._event
        self._data, self._event = [], ""
        if not data:
            return None
        return Message("\n".join(data), event or "message", self._id, self._retry)


def messages(lines: Iterable[str]) -> Iterator[Message]:
    """The messages of a stream of lines."""
    decoder = Decoder()
    for line in lines:
        message = decoder.feed(line)
        if message is not None:
            yield message


async def amessages(lines: AsyncIterable[str]) -> AsyncIterator[Message]:
    """The messages of an asynchronous stream of lines."""
    decoder = Decoder()
    async for line in lines:
        message = decoder.feed(line)
        if message is not None:
            yield message
