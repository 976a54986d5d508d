"""Checks of the built HTML site that a green Sphinx build does not guarantee.

Run after the build, from the repository root::

    python docs/_ext/check_html.py docs/_build/html            # the static checks
    python docs/_ext/check_html.py docs/_build/html --mathjax  # and MathJax, in Chromium

Static checks (standard library only), on every page:

- **raw markup**: no MyST role (``{eq}`...```, ``{doc}``, ``{cite:p}``, ...) and no
  ``$``-delimited maths left as text outside code, and no role inside a formula (a role in
  ``\\text{...}`` is never parsed);
- **signatures**: no public class documented as ``(*args, **kwargs)``;
- **summaries**: every one-line summary of an API table has balanced brackets (a summary
  cut at the period of ``[GPF19, Eq. 13]`` has not);
- **specification tags**: every ``[DT-SPEC §5.2]``-like tag outside code is a link;
- **links**: every internal ``href`` and ``src`` points at a file of the site, and every
  ``#fragment`` at an ``id`` of its page;
- **figures**: every executed page that draws (a tutorial calling matplotlib, the
  Reproduction page) shows at least one image (a backend that cannot render inline once
  left every tutorial without a figure while the build stayed green).

With ``--mathjax``, every page with maths is loaded in headless Chromium (the local MathJax
copy, no network) and must come out with every formula typeset, none in error
(``mjx-merror``) and no undefined macro (which MathJax shows in red, without an error).
Without a Chromium binary the check is skipped with a message, or fails under
``--require-browser``.

Each problem is printed as ``page: what: offending text``; the exit status is 1 if there
is any.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

ROOT = Path(__file__).resolve().parents[2]

CODE_TAGS = {"pre", "code", "script", "style", "textarea", "kbd", "samp"}
"""Elements whose text is shown as written: markup there is not a rendering error."""

VOID_TAGS = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta",
             "source", "track", "wbr"}

RAW_ROLE = re.compile(r"\{[a-z][\w:.+-]*\}`[^`]*`?")
"""A MyST role left as text: ``{eq}`eq-x```, ``{cite:p}`AG13```, ``{doc}`...```."""

RAW_DOLLAR_MATH = re.compile(r"\$\$|\$[^$\s\d][^$\n]*?[^$\s\\]\$|\$[^$\s\d]\$")
"""``$$``, or ``$x$``-like text: dollar maths that was not parsed (prices such as $5 pass)."""

SPEC_TAG = re.compile(r"\[(?:DT|SGT|ABACOC|DET)-SPEC [^\]\n]{1,12}\]")

ARGS_KWARGS = re.compile(r"\(\s*\*args\s*,\s*\*\*kwargs\s*\)")

DRAWING = re.compile(r"\bplt\.|\.plot\(")


class Page(HTMLParser):
    """One parsed page: its text by context, ids, links, images, and API entries."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, dict[str, str]]] = []
        self.ids: set[str] = set()
        self.links: list[str] = []
        self.images = 0
        self.prose: list[str] = []  # text outside code and maths, with line breaks kept
        self.maths: list[str] = []  # text of the math elements (before MathJax)
        self.unlinked_tags: list[str] = []
        self.class_signatures: list[tuple[str, str]] = []  # (id, text of the <dt>)
        self.summaries: list[str] = []
        self._signature: tuple[str, list[str]] | None = None
        self._summary: list[str] | None = None
        self._math: list[str] | None = None
        self._math_depth = 0
        self._cells_in_row = 0

    # -- structure -------------------------------------------------------------------------
    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = {k: v or "" for k, v in attrs}
        if attributes.get("id"):
            self.ids.add(attributes["id"])
        if tag == "a" and attributes.get("name"):
            self.ids.add(attributes["name"])
        if tag == "a" and "href" in attributes:
            self.links.append(attributes["href"])
        if tag in ("img", "script", "link", "source"):
            target = attributes.get("src") or (attributes.get("href") if tag == "link" else "")
            if target:
                self.links.append(target)
        if tag == "img":
            self.images += 1
        if tag in VOID_TAGS:
            return
        classes = attributes.get("class", "").split()
        if tag == "dt" and "sig" in classes and self._in_class_entry():
            self._signature = (attributes.get("id", "?"), [])
        if tag == "tr":
            self._cells_in_row = 0
        if tag == "td":
            # the second cell of an autosummary row is the one-line summary
            if self._cells_in_row == 1 and self._in("table", "autosummary"):
                self._summary = []
            self._cells_in_row += 1
        if "math" in classes and self._math is None:
            self._math, self._math_depth = [], len(self.stack) + 1
        self.stack.append((tag, attributes))

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID_TAGS:
            return
        while self.stack:
            open_tag, _ = self.stack.pop()
            self._closed(open_tag)
            if open_tag == tag:
                break

    def _closed(self, tag: str) -> None:
        if self._math is not None and len(self.stack) < self._math_depth:
            self.maths.append("".join(self._math))
            self._math = None
        if tag == "dt" and self._signature is not None:
            ident, text = self._signature
            self.class_signatures.append((ident, "".join(text)))
            self._signature = None
        if tag == "td" and self._summary is not None:
            self.summaries.append(" ".join("".join(self._summary).split()))
            self._summary = None

    def handle_data(self, data: str) -> None:
        if self._signature is not None:
            self._signature[1].append(data)
        if self._summary is not None:
            self._summary.append(data)
        if self._math is not None:
            self._math.append(data)
            return
        if any(tag in CODE_TAGS for tag, _ in self.stack):
            return
        self.prose.append(data)
        if not any(tag == "a" for tag, _ in self.stack):
            self.unlinked_tags += SPEC_TAG.findall(data)

    # -- helpers ---------------------------------------------------------------------------
    def _in(self, tag: str, cls: str) -> bool:
        return any(t == tag and cls in a.get("class", "").split() for t, a in self.stack)

    def _in_class_entry(self) -> bool:
        return bool(self.stack) and self.stack[-1][0] == "dl" and any(
            c in self.stack[-1][1].get("class", "").split() for c in ("class", "exception")
        ) and "py" in self.stack[-1][1].get("class", "").split()

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag not in VOID_TAGS:
            self.handle_endtag(tag)


def parse(path: Path) -> Page:
    page = Page()
    page.feed(path.read_text(encoding="utf-8"))
    page.close()
    return page


def site_pages(site: Path) -> Iterator[Path]:
    for path in sorted(site.rglob("*.html")):
        parts = path.relative_to(site).parts
        if parts[0] in ("_static", "_sources", "_images", "_modules") or parts[0].startswith("."):
            continue
        yield path


def _excerpt(text: str, match: re.Match[str], width: int = 50) -> str:
    start, end = max(0, match.start() - width), min(len(text), match.end() + width)
    return " ".join(text[start:end].split())


# -- the static checks ---------------------------------------------------------------------


def check_page(path: Path, site: Path, page: Page, ids: dict[Path, set[str]]) -> list[str]:
    name = path.relative_to(site).as_posix()
    problems = []
    prose = "".join(page.prose)
    for match in RAW_ROLE.finditer(prose):
        problems.append(f"{name}: raw MyST role in the text: {_excerpt(prose, match)!r}")
    for match in RAW_DOLLAR_MATH.finditer(prose):
        problems.append(f"{name}: $-maths left as text: {_excerpt(prose, match)!r}")
    for formula in page.maths:
        for match in RAW_ROLE.finditer(formula):
            problems.append(f"{name}: MyST role inside a formula (it is never parsed there): "
                            f"{_excerpt(formula, match)!r}")
    for ident, text in page.class_signatures:
        if ARGS_KWARGS.search(text) and not ident.split(".")[-1].startswith("_"):
            problems.append(f"{name}: public class {ident} documented with the signature "
                            f"(*args, **kwargs): {' '.join(text.split())!r}")
    for summary in page.summaries:
        if summary.count("[") != summary.count("]") or summary.count("(") != summary.count(")"):
            problems.append(f"{name}: one-line summary cut inside brackets: {summary!r}")
    for tag in page.unlinked_tags:
        problems.append(f"{name}: specification tag is not a link: {tag!r}")
    for href in page.links:
        problem = _check_link(path, site, href, ids)
        if problem:
            problems.append(f"{name}: {problem}")
    return problems


def _check_link(path: Path, site: Path, href: str, ids: dict[Path, set[str]]) -> str:
    parts = urlsplit(href)
    if parts.scheme or parts.netloc or href.startswith(("mailto:", "javascript:", "data:")):
        return ""
    target = path if not parts.path else (path.parent / unquote(parts.path))
    target = Path(os.path.normpath(target))
    if target.is_dir():
        target = target / "index.html"
    if site.resolve() not in target.resolve().parents and target.resolve() != site.resolve():
        return f"link leaves the site: {href!r}"
    if not target.exists():
        return f"broken link (no file): {href!r}"
    fragment = unquote(parts.fragment)
    if fragment and target.suffix == ".html":
        if target not in ids:
            ids[target] = parse(target).ids
        if fragment not in ids[target]:
            return f"broken link (no anchor #{fragment} in {target.relative_to(site)}): {href!r}"
    return ""


def drawing_pages(site: Path, source: Path = ROOT) -> list[Path]:
    """Built pages that must show a figure: tutorials that draw, and the Reproduction page."""
    pages = [site / "tutorials" / f"{p.stem}.html"
             for p in sorted((source / "tutorials").glob("*.md"))
             if DRAWING.search(p.read_text(encoding="utf-8"))]
    return pages + [site / "reproduction.html"]


def check_figures(site: Path, pages: dict[Path, Page]) -> list[str]:
    problems = []
    for built in drawing_pages(site):
        page = pages.get(built)
        count = page.images if page is not None else -1
        print(f"{built.relative_to(site)}: {count} images")
        if count <= 0:
            problems.append(f"{built.relative_to(site)}: draws but shows no image "
                            f"({'page missing' if page is None else 'no <img>'})")
    return problems


def static_checks(site: Path, figures: bool = True) -> list[str]:
    pages = {path: parse(path) for path in site_pages(site)}
    ids = {path: page.ids for path, page in pages.items()}
    problems = []
    for path, page in pages.items():
        problems += check_page(path, site, page, ids)
    if figures:
        problems += check_figures(site, pages)
    print(f"static checks: {len(pages)} pages, {len(problems)} problems")
    return problems


# -- MathJax in a browser --------------------------------------------------------------------

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")

CHROMIUM_FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
    "--disable-default-apps", "--mute-audio", "--allow-file-access-from-files",
]


def find_browser() -> str | None:
    for name in BROWSERS:
        found = shutil.which(name)
        if found:
            return found
    return None


def rendered_dom(browser: str, page: Path, budget_ms: int = 20000) -> str:
    """The page's DOM after its scripts ran (virtual time, so MathJax finishes)."""
    command = [browser, *CHROMIUM_FLAGS, f"--virtual-time-budget={budget_ms}",
               "--dump-dom", page.resolve().as_uri()]
    result = subprocess.run(command, capture_output=True, text=True, timeout=180)
    if result.returncode != 0 or "<html" not in result.stdout:
        raise RuntimeError(f"{browser} failed on {page}: {result.stderr[-2000:]}")
    return result.stdout


MATH_ELEMENT = re.compile(
    r'<(span|div) class="math notranslate nohighlight"[^>]*>(.*?)</\1>', flags=re.S
)
MERROR = re.compile(r"<mjx-merror([^>]*)>(.*?)</mjx-merror>", flags=re.S)
UNDEFINED = re.compile(r'<mtext mathcolor="red">(\\[A-Za-z@]+)</mtext>')
"""An undefined macro: MathJax's ``noundefined`` extension shows its name in red, no error."""
TAGS = re.compile(r"<[^>]+>")


def mathjax_problems(name: str, dom: str, expected: int) -> list[str]:
    """Formulas in error or left untypeset in a rendered page's DOM."""
    problems = []
    for match in MERROR.finditer(dom):
        attributes, inner = match.groups()
        message = re.search(r'data-mjx-error="([^"]*)"', attributes)
        text = message.group(1) if message else " ".join(TAGS.sub(" ", inner).split())
        problems.append(f"{name}: MathJax error: {text!r}")
    for match in UNDEFINED.finditer(dom):
        problems.append(f"{name}: MathJax: undefined control sequence {match.group(1)}")
    typeset = dom.count("<mjx-container")
    for match in MATH_ELEMENT.finditer(dom):
        inner = match.group(2)
        if "<mjx-container" not in inner:
            problems.append(f"{name}: formula not typeset: {' '.join(inner.split())[:120]!r}")
    if typeset < expected:
        problems.append(f"{name}: {expected} formulas in the page, {typeset} typeset")
    return problems


def mathjax_checks(site: Path, browser: str) -> list[str]:
    problems = []
    checked = 0
    for path in site_pages(site):
        html = path.read_text(encoding="utf-8")
        expected = len(MATH_ELEMENT.findall(html))
        if not expected:
            continue
        name = path.relative_to(site).as_posix()
        try:
            dom = rendered_dom(browser, path)
        except (RuntimeError, subprocess.TimeoutExpired) as err:
            problems.append(f"{name}: could not render: {err}")
            continue
        found = mathjax_problems(name, dom, expected)
        checked += 1
        print(f"{name}: {expected} formulas, {'ok' if not found else f'{len(found)} problems'}")
        problems += found
    print(f"MathJax: {checked} pages with maths rendered in {browser}")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("site", type=Path, help="the built HTML site (docs/_build/html)")
    parser.add_argument("--mathjax", action="store_true",
                        help="also typeset every page in headless Chromium")
    parser.add_argument("--require-browser", action="store_true",
                        help="with --mathjax: fail, rather than skip, without Chromium")
    parser.add_argument("--no-figures", action="store_true",
                        help="skip the figure check (a build without executed notebooks)")
    args = parser.parse_args(argv)
    if not (args.site / "index.html").is_file():
        print(f"{args.site}: no index.html: not a built site", file=sys.stderr)
        return 2
    problems = static_checks(args.site, figures=not args.no_figures)
    if args.mathjax:
        browser = find_browser()
        if browser is None:
            message = f"MathJax check: no Chromium found ({', '.join(BROWSERS)})"
            if args.require_browser:
                problems.append(message)
            else:
                print(f"{message}: SKIPPED")
        else:
            problems += mathjax_checks(args.site, browser)
    for problem in problems:
        print(f"PROBLEM {problem}", file=sys.stderr)
    if problems:
        print(f"{len(problems)} problems in the built HTML", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
