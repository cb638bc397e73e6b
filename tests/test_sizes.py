"""Small parts: no class over 300 lines and no function over 60 in domain/, eventstore/ and
service/ (measured from a definition's first line to its last, docstring and comments
included), so a newcomer reads any one of them whole."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("domain", "eventstore", "service")
LONGEST_CLASS, LONGEST_FUNCTION = 300, 60


def too_long() -> list[str]:
    found = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                size = (getattr(node, "end_lineno", 0) or 0) - getattr(node, "lineno", 0) + 1
                where = f"{path.relative_to(ROOT)}:{getattr(node, 'lineno', 0)}"
                if isinstance(node, ast.ClassDef) and size > LONGEST_CLASS:
                    found.append(f"{where} class {node.name}: {size} lines")
                function = isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
                if function and size > LONGEST_FUNCTION:
                    found.append(f"{where} def {node.name}: {size} lines")
    return found


def test_no_class_over_300_lines_and_no_function_over_60() -> None:
    assert too_long() == []
