PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# Held while the environment is built, so `make run` and `make test` started together on a
# fresh clone build it once: the second waits, then finds the stamp up to date. It lives
# outside .venv (which does not exist yet) and is never removed (a lock file removed while
# held no longer excludes anyone).
LOCK := .venv.lock

.PHONY: run test lint typecheck unit docs docs-serve docs-settings docs-screenshot openapi \
	client-models ts-types bench clean

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

test: lint typecheck docs unit

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports

typecheck: $(STAMP)
	$(BIN)/mypy

unit: $(STAMP)
	$(BIN)/pytest

# The manual (mkdocs.yml, docs/): built strictly into site/, so a broken link, a missing page
# or a route the routes page does not describe fails the build. (Not --quiet: it hides the
# warnings from --strict, which then fails nothing.)
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

docs-serve: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs serve --strict -a 127.0.0.1:8001

# The settings page, generated from service/settings.py (a test fails when it is stale).
docs-settings: $(STAMP)
	$(BIN)/python docsgen/settings_page.py > docs/reference/settings.md

# The play page's screenshot for the README (Debian's chromium through Playwright).
docs-screenshot: $(STAMP)
	$(BIN)/python docsgen/screenshot.py docs/images/play.png

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
	rm -rf $(VENV) site
