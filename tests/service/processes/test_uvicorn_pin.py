"""service/http_limits.py subclasses uvicorn's private httptools protocol, so uvicorn is
pinned to the releases it was tested on: the installed uvicorn must be one of them, and
pyproject.toml must pin exactly that range (a new release is tested, then the range widened)."""

from __future__ import annotations

import tomllib
from importlib.metadata import version
from pathlib import Path

from packaging.requirements import Requirement

from service.http_limits import TESTED_UVICORN

PYPROJECT = Path(__file__).parents[3] / "pyproject.toml"


def test_the_installed_uvicorn_is_one_http_limits_was_tested_on() -> None:
    installed = version("uvicorn")
    assert Requirement(f"uvicorn{TESTED_UVICORN}").specifier.contains(installed), (
        f"uvicorn {installed} is untested with service/http_limits.py (tested: {TESTED_UVICORN})"
    )


def test_pyproject_pins_uvicorn_to_the_tested_range() -> None:
    project = tomllib.loads(PYPROJECT.read_text())["project"]["dependencies"]
    (pin,) = (Requirement(d) for d in project if Requirement(d).name == "uvicorn")
    assert pin.specifier == Requirement(f"uvicorn{TESTED_UVICORN}").specifier
