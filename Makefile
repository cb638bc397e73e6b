PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint typecheck unit openapi bench clean

$(STAMP): pyproject.toml clients/pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[test]' -e clients
	touch $(STAMP)

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

bench: $(STAMP)
	$(BIN)/python bench/domain.py

clean:
	rm -rf $(VENV)
