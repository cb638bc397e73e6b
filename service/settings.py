"""Service settings, from arguments or ``TABULA_*`` environment variables."""

from __future__ import annotations

import os
from typing import Literal

import msgspec

LogFormat = Literal["json", "kv"]


class Settings(msgspec.Struct, frozen=True):
    """Everything the composition root needs; defaults suit one local process."""

    host: str = "127.0.0.1"
    port: int = 8000
    database: str = "tabula.db"
    synchronous: str = "FULL"
    log_format: LogFormat = "kv"
    log_level: str = "info"
    max_body_bytes: int = 64 * 1024
    max_page: int = 1000

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None) -> Settings:
        """Settings with any ``TABULA_<FIELD>`` environment variable applied."""
        env = os.environ if environ is None else environ
        given = {
            name: env[f"TABULA_{name.upper()}"]
            for name in cls.__struct_fields__
            if f"TABULA_{name.upper()}" in env
        }
        return msgspec.convert(given, cls, strict=False)
