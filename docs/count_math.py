"""Count the typeset formulas of the built site.

    python docs/count_math.py docs/_build/html          # total, then the pages by count
    python docs/count_math.py docs/_build/html --total  # the total only

A formula is one math element of Sphinx's HTML writer: an inline ``<span class="math">``
(MyST ``$…$``, ``{math}`` role, ``:math:`` in docstrings) or a display ``<div class="math">``
(``$$…$$``, ``{math}`` directive, amsmath environments).  MathJax typesets exactly these
elements in the browser, so the count is the number of formulas a reader sees typeset.
"""
from __future__ import annotations

import argparse
import re
from html.parser import HTMLParser
from pathlib import Path


class _MathCounter(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.count = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("span", "div"):
            classes = (dict(attrs).get("class") or "").split()
            if "math" in classes:
                self.count += 1


def count_page(html: str) -> int:
    """The number of math elements in one HTML page."""
    parser = _MathCounter()
    parser.feed(html)
    parser.close()
    return parser.count


def count_site(site: Path) -> dict[str, int]:
    """{page path relative to the site: its number of formulas} for every page with one
    (generated source listings under ``_modules/`` and ``_sources/`` are not pages)."""
    counts = {}
    for page in sorted(site.rglob("*.html")):
        rel = page.relative_to(site).as_posix()
        if rel.startswith(("_modules/", "_sources/", "_static/")):
            continue
        n = count_page(page.read_text(encoding="utf-8"))
        if n:
            counts[rel] = n
    return counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", type=Path, help="the built HTML directory")
    parser.add_argument("--total", action="store_true", help="print the total only")
    args = parser.parse_args(argv)
    counts = count_site(args.site)
    print(sum(counts.values()))
    if not args.total:
        for page, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
            print(f"{n:6d}  {page}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
