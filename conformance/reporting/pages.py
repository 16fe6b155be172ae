"""The HTML pages, report.html and fleet.html, are templates (templates/): one layout, one stylesheet, one
Content-Security-Policy, and autoescaping on.

Every value of a report may come from the target, and a template escapes every value it writes: markup reaches a
page only from the templates themselves. Nothing is marked safe: the stylesheet, the filter script and the inline
SVG of the score trend are templates too, included by the pages. The policy admits the page's own stylesheet and
script by their hashes and nothing else, so a slip could show markup, never run it or load anything.
"""
from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Callable
from typing import Any

from jinja2 import ChainableUndefined, Environment, PackageLoader, Undefined

from conformance.reporting.build import NOT_SELECTED, STATUSES

# A mark beside each status word, so a status never rests on colour alone.
MARKS = {"pass": "✓", "fail": "✗", "flaky": "≈", "error": "!", "skip": "–", "untested": "○", "observed": "◉",
         NOT_SELECTED: "·"}

# A line break between two tags, HTML or template ones ({% %}, {{ }}, {# #}), with the indentation after it, only
# lays the template out: the pages carry none of it, so no space shows where the markup did not ask for one. A line
# that ends or starts with text keeps its line break (a space on the page).
_LAYOUT = re.compile(r"(?:(?<=>)|(?<=[%}#]\}))\n\s*(?=<|\{[%#{])")


class _Loader(PackageLoader):
    """The package's templates, those of HTML and SVG without the line breaks that only lay them out."""

    def get_source(self, environment: Environment, template: str) -> tuple[str, str, Callable[[], bool] | None]:
        source, filename, uptodate = super().get_source(environment, template)
        if template.endswith((".html", ".svg")):
            source = _LAYOUT.sub("", source)
        return source, filename, uptodate


def dash(value: Any) -> Any:
    """The value, or — where there is none."""
    if value is None or isinstance(value, Undefined) or value == "":
        return "—"
    # A string is kept as it is: text is escaped when written, markup a template built (a join) is not.
    return value if isinstance(value, str) else str(value)


def percent(ratio: Any) -> str:
    return f"{ratio:.1%}" if isinstance(ratio, (int, float)) else "—"


def plural(noun: str, count: int) -> str:
    return noun if count == 1 else noun + "s"


def counted(count: int, noun: str) -> str:
    """`1 rule`, `3 rules`."""
    return f"{count} {plural(noun, count)}"


def slug(status: Any) -> str:
    """A status as a class name ("not selected" holds a space)."""
    return str(status).replace(" ", "-")


class _Pages(Environment):
    """`rule.items` in a template is the member `items` of a report's object, not the method of dict so named."""

    def getattr(self, obj: Any, attribute: str) -> Any:
        if isinstance(obj, dict) and attribute in obj:
            return obj[attribute]
        return super().getattr(obj, attribute)


# A member an older or hand-made report lacks reads as missing, at any depth, as `.get()` did.
TEMPLATES = _Pages(loader=_Loader("conformance.reporting", "templates"), autoescape=True, undefined=ChainableUndefined)
TEMPLATES.filters.update(dash=dash, percent=percent, plural=plural, counted=counted, slug=slug,
                         mark=lambda status: MARKS.get(status, ""))
TEMPLATES.globals.update(statuses=STATUSES)


def _sha256(name: str) -> tuple[str, str]:
    text = TEMPLATES.get_template(name).render()
    return text, base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()


# The layout includes these two templates, rendered as they are here: the policy admits exactly these texts.
STYLE, _STYLE_SHA256 = _sha256("page.css")
SCRIPT, _SCRIPT_SHA256 = _sha256("filter.js")
TEMPLATES.globals.update(style_sha256=_STYLE_SHA256, script_sha256=_SCRIPT_SHA256)


def render(name: str, **context: Any) -> str:
    """Template `name` filled with `context`, every value escaped."""
    return TEMPLATES.get_template(name).render(**context)
