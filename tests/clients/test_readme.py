"""The client README's Python examples run against the real server."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).parents[2] / "clients" / "README.md"
EXAMPLES = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.DOTALL)


def test_readme_has_examples() -> None:
    assert len(EXAMPLES) >= 3


@pytest.mark.parametrize("example", EXAMPLES, ids=[f"example-{i}" for i in range(len(EXAMPLES))])
def test_readme_example_runs(example: str, server_url: str) -> None:
    code = example.replace("http://127.0.0.1:8000", server_url)
    exec(compile(code, str(README), "exec"), {"__name__": "readme"})
