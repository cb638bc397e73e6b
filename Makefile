PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# Held while the environment is built, so `make run` and `make test` started together on a
# fresh clone build it once: the second waits, then finds the stamp up to date. It lives
# outside .venv (which does not exist yet) and is never removed (a lock file removed while
# held no longer excludes anyone).
LOCK := .venv.lock

.PHONY: run test lint typecheck unit openapi client-models ts-types bench clean

ifdef VENV_LOCKED
$(STAMP): pyproject.toml clients/pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[test]' -e clients
	touch $(STAMP)
else
# Take the lock, then ask make again whether the stamp is out of date: another make may have
# built the environment while this one waited.
$(STAMP): pyproject.toml clients/pyproject.toml
	flock $(LOCK) $(MAKE) --no-print-directory VENV_LOCKED=1 $(STAMP)
endif

run: $(STAMP)
	$(BIN)/python -m service

test: lint typecheck unit

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports

typecheck: $(STAMP)
	$(BIN)/mypy

unit: $(STAMP)
	$(BIN)/pytest

openapi: $(STAMP)
	$(BIN)/python -m service openapi > openapi/openapi.json
	$(BIN)/python -m service socket-schema > openapi/socket.schema.json

# The TypeScript client's types, generated from the committed document (run `make openapi`
# first when the API changed).
ts-types:
	cd clients/typescript && npm ci && npm run generate

# The Python client's wire types, generated from the document (a test fails when stale).
client-models: $(STAMP)
	$(BIN)/python clients/tabula_client/codegen.py openapi/openapi.json > clients/tabula_client/wire.py.new
	mv clients/tabula_client/wire.py.new clients/tabula_client/wire.py

bench: $(STAMP)
	$(BIN)/python bench/domain.py

clean:
	rm -rf $(VENV)
