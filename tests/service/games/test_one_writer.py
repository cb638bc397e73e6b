"""One unit appends to the store: ``service/usecases/writer.py``. Any other call of a
store's ``append``, ``append_async`` or ``append_batch`` in the service fails this test."""

from __future__ import annotations

import ast
from pathlib import Path

SERVICE = Path(__file__).parents[3] / "service"
APPENDS = {"append", "append_async", "append_batch"}


def store_appends(path: Path) -> list[int]:
    """The lines of ``path`` that call an append on something named like a store."""
    lines = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            owner = ast.unparse(node.func.value)
            if node.func.attr in APPENDS and "store" in owner:
                lines.append(node.lineno)
    return lines


def test_only_the_writer_appends_to_the_store() -> None:
    found = {
        str(path.relative_to(SERVICE)): lines
        for path in SERVICE.rglob("*.py")
        if (lines := store_appends(path))
    }
    assert set(found) == {"usecases/writer.py"}, found
