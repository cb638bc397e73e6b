"""Every board in headless Chromium, measured with the browser's own fonts: each shape and
line of text inside the view box, and no piece over a square's label.

Skipped (or failed) with the viewer's browser test: see its module's docstring.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from litestar.testing import TestClient

from domain.registry import RULESETS
from tests.service.browser import chromium
from tests.service.pages.test_board import play_randomly
from tests.service.pages.test_board_bounds import LONG_NAMES
from tests.service.pages.test_board_labels import NAMES, create_named

pytestmark = [pytest.mark.browser, pytest.mark.slow]

Api = TestClient[Any]

OUTSIDE = """svg => {
  const [x, y, w, h] = svg.getAttribute("viewBox").split(" ").map(Number);
  const out = [];
  for (const e of svg.querySelectorAll("rect, circle, line, polygon, text")) {
    const b = e.getBBox();
    const stroke = e.getAttribute("stroke") && e.getAttribute("stroke") !== "none"
      ? Number(e.getAttribute("stroke-width") || 1) / 2 : 0;
    if (b.x - stroke < x - 0.01 || b.y - stroke < y - 0.01
        || b.x + b.width + stroke > x + w + 0.01 || b.y + b.height + stroke > y + h + 0.01) {
      out.push(e.outerHTML.slice(0, 200));
    }
  }
  return out;
}"""
COVERED = """svg => {
  const discs = [...svg.querySelectorAll(".piece circle")].map(c => ({
    x: c.cx.baseVal.value, y: c.cy.baseVal.value, r: c.r.baseVal.value }));
  const within = (b, d) =>
    d.x >= b.x && d.x <= b.x + b.width && d.y >= b.y && d.y <= b.y + b.height;
  const meet = (b, d) => {
    const nx = Math.min(Math.max(d.x, b.x), b.x + b.width);
    const ny = Math.min(Math.max(d.y, b.y), b.y + b.height);
    return (d.x - nx) ** 2 + (d.y - ny) ** 2 < d.r ** 2;
  };
  const covered = [];
  for (const square of svg.querySelectorAll(".square")) {
    const word = square.querySelector("text.label");
    if (!word) continue;
    const area = square.querySelector("rect, circle").getBBox();
    const here = discs.filter(d => within(area, d));
    const banner = /^(start|home)/.test(square.dataset.key);
    if ((banner || here.length <= 2) && discs.some(d => meet(word.getBBox(), d))) {
      covered.push(`${square.dataset.key} (${here.length} here)`);
    }
  }
  return covered;
}"""
"""Squares whose label a piece covers: never a start's or home's word, and never a number
on a square holding one or two pieces."""


@pytest.mark.parametrize("names", [NAMES, LONG_NAMES], ids=["short", "long"])
def test_every_board_fits_its_view_box_in_a_browser(
    api: Api, tmp_path: Path, record_property: Any, names: tuple[str, ...]
) -> None:
    svgs = {}
    for ruleset in sorted(RULESETS):
        created = create_named(api, ruleset, RULESETS[ruleset].MAX_PLAYERS, names)
        play_randomly(api, created, 40, random.Random(ruleset))
        svgs[ruleset] = api.get(f"/games/{created['id']}/board.svg").text
    with chromium() as browser:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        for ruleset, svg in svgs.items():
            page.set_content(f"<!doctype html><title>{ruleset}</title><body>{svg}</body>")
            assert page.eval_on_selector("svg", OUTSIDE) == [], ruleset
            assert page.eval_on_selector("svg", COVERED) == [], ruleset
            path = tmp_path / f"board-{ruleset}.png"
            page.locator("svg").screenshot(path=str(path))
            record_property(f"screenshot-{ruleset}", str(path))
