"""The client stands alone: it never imports the server's packages."""

from __future__ import annotations

import subprocess
import sys

SERVER_PACKAGES = ("domain", "eventstore", "service")


def test_client_imports_no_server_package() -> None:
    probe = (
        "import sys, tabula_client, tabula_client.cli, tabula_client.bots\n"
        f"loaded = sorted(m for m in sys.modules if m.split('.')[0] in {SERVER_PACKAGES!r})\n"
        "print(','.join(loaded))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd="/"
    )
    assert done.stdout.strip() == ""
