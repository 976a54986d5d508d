"""Equation numbers never overlap their formulas: every labelled equation of the tutorials,
built with the documentation's theme, stylesheet and MathJax, typeset in headless Chromium
(Selenium with the system's chromedriver) at 1280 px, the number's rendered box measured
against the formula's.

Skipped, with the reason, where Selenium, Chromium or chromedriver is missing (CI installs
Debian's ``chromium`` and ``chromium-driver``, and Selenium comes with the docs extra).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
TUTORIALS = sorted((ROOT / "tutorials").glob("*.md"))
WIDTH = 1280
"""The window width of the check (a laptop's)."""

LABELLED = re.compile(r"^\$\$\n(.*?)\n\$\$ \(([\w-]+)\)$", flags=re.M | re.S)

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu",
                  "--disable-background-networking", "--disable-component-update",
                  "--no-first-run", "--disable-sync", "--allow-file-access-from-files",
                  f"--window-size={WIDTH},1000"]


def _browser() -> tuple[str, str]:
    """(Chromium, chromedriver), or skip the module saying which is missing."""
    pytest.importorskip("selenium", reason="Selenium is not installed (the docs extra)")
    pytest.importorskip("myst_parser", reason="myst-parser is not installed (the docs extra)")
    browser = next((shutil.which(b) for b in ("chromium", "chromium-browser",
                                              "google-chrome") if shutil.which(b)), None)
    driver = shutil.which("chromedriver")
    if browser is None or driver is None:
        pytest.skip("no Chromium and chromedriver (Debian: apt-get install chromium "
                    "chromium-driver)")
    return browser, driver


def _site(folder: Path) -> Path:
    """A Sphinx site of one page per tutorial holding its labelled equations, built with
    the documentation's theme, stylesheet and offline MathJax."""
    source = folder / "src"
    source.mkdir()
    static = ROOT / "docs" / "_static"
    theme = "furo" if _has("furo") else "alabaster"
    (source / "conf.py").write_text(
        "extensions = ['myst_parser', 'sphinx-mathjax-offline']\n"
        "myst_enable_extensions = ['dollarmath', 'amsmath']\n"
        f"html_theme = {theme!r}\n"
        f"html_static_path = [{str(static)!r}]\n"
        "html_css_files = ['driftwood.css']\n", encoding="utf-8")
    pages = []
    for tutorial in TUTORIALS:
        equations = LABELLED.findall(tutorial.read_text(encoding="utf-8"))
        if not equations:
            continue
        body = "\n\n".join(f"Equation {label}:\n\n$$\n{tex}\n$$ ({label})"
                           for tex, label in equations)
        (source / f"{tutorial.stem}.md").write_text(f"# {tutorial.stem}\n\n{body}\n",
                                                    encoding="utf-8")
        pages.append(tutorial.stem)
    (source / "index.md").write_text(
        "# Equations\n\n```{toctree}\n" + "\n".join(pages) + "\n```\n", encoding="utf-8")
    out = folder / "html"
    subprocess.run([sys.executable, "-m", "sphinx", "-q", "-b", "html", str(source), str(out)],
                   check=True, capture_output=True, text=True)
    return out


def _has(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None


MEASURE = """
const done = arguments[arguments.length - 1];
MathJax.startup.promise.then(() => {
  const out = [];
  for (const block of document.querySelectorAll('div.math')) {
    const number = block.querySelector('span.eqno');
    const formula = block.querySelector('mjx-container mjx-math');
    if (!number || !formula) continue;
    // the part of the formula a reader sees: its box, clipped by its container where the
    // container scrolls (a formula wider than the column)
    const a = number.getBoundingClientRect(), f = formula.getBoundingClientRect();
    const box = formula.closest('mjx-container'), c = box.getBoundingClientRect();
    const clips = getComputedStyle(box).overflowX !== 'visible';
    const b = clips ? {left: Math.max(f.left, c.left), top: Math.max(f.top, c.top),
                       right: Math.min(f.right, c.right), bottom: Math.min(f.bottom, c.bottom)}
                    : f;
    out.push({id: block.id, number: [a.left, a.top, a.right, a.bottom],
              formula: [b.left, b.top, b.right, b.bottom], clipped: clips && f.right > c.right,
              page: document.documentElement.clientWidth});
  }
  done(out);
});
"""


def overlaps(first: list[float], second: list[float]) -> bool:
    """Whether two boxes (left, top, right, bottom) share an area."""
    return (min(first[2], second[2]) > max(first[0], second[0])
            and min(first[3], second[3]) > max(first[1], second[1]))


def test_overlaps_is_true_only_for_boxes_that_share_an_area() -> None:
    assert overlaps([0, 0, 10, 10], [9, 9, 20, 20])
    assert not overlaps([0, 0, 10, 10], [10, 0, 20, 10])      # touching edges only
    assert not overlaps([0, 0, 10, 10], [0, 10, 10, 20])
    assert overlaps([0, 0, 100, 10], [40, 2, 60, 8])          # one inside the other


def test_equation_numbers_never_overlap_their_formulas_at_1280_px(tmp_path: Path) -> None:
    browser, driver_path = _browser()
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    site = _site(tmp_path)
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    driver = webdriver.Chrome(options=options, service=Service(executable_path=driver_path))
    try:
        driver.set_script_timeout(60)
        measured: list[dict[str, Any]] = []
        for page in sorted(site.glob("0*.html")):
            driver.get(page.as_uri())
            boxes = driver.execute_async_script(MEASURE)
            assert boxes, f"{page.name}: no numbered equation typeset"
            measured += [dict(box, page_name=page.stem) for box in boxes]
    finally:
        driver.quit()
    expected = sum(len(LABELLED.findall(t.read_text(encoding="utf-8"))) for t in TUTORIALS)
    assert len(measured) == expected
    assert {round(m["page"]) for m in measured} <= set(range(WIDTH - 20, WIDTH + 1))
    clashes = [f"{m['page_name']} {m['id']}: number {m['number']} over formula {m['formula']}"
               for m in measured if overlaps(m["number"], m["formula"])]
    assert not clashes, "\n".join(clashes)
