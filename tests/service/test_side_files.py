"""The files the service makes beside its SQLite database are all ignored by the repository's
``.gitignore`` (``make run`` in a checkout leaves no untracked file): the database, SQLite's
``-wal`` and ``-shm``, the writers' ``-writer`` lock and the ``.marker``."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

from litestar.testing import TestClient

from service.settings import Settings

ROOT = Path(__file__).parents[2]


def ignored(name: str) -> bool:
    """Whether the repository's ignore rules leave out a file ``name`` at its top."""
    asked = ["git", "check-ignore", "--no-index", "--quiet", name]
    return subprocess.run(asked, cwd=ROOT, check=False).returncode == 0


def test_every_file_beside_the_database_is_ignored_by_git(
    api: TestClient[Any], settings: Settings
) -> None:
    body = {"ruleset": "race35", "seats": [{"name": "Ann"}, {"name": "Bob"}]}
    assert api.post("/games", json=body).status_code == 201
    database = Path(settings.database)
    made = sorted(p.name for p in database.parent.iterdir() if p.name.startswith(database.name))
    assert {"tabula.db", "tabula.db-writer", "tabula.db.marker"} <= set(made), made
    assert [name for name in made if not ignored(name)] == []
