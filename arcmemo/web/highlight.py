"""Python source as HTML with its syntax coloured, server-side (Pygments): helpers and their
verifying programs on the concept page, each pass's program on a run's task page and in the
report. Pygments escapes the text it wraps; the only markup is its own `<span class="...">`,
styled by `code_css()` (inline in the page's style sheet: no file, no script)."""

from __future__ import annotations

from functools import cache

from markupsafe import Markup
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import PythonLexer

CSS_CLASS = "code"


@cache
def _formatter() -> HtmlFormatter:
    return HtmlFormatter(cssclass=CSS_CLASS, wrapcode=True, style="default")


def python_html(source: str | None) -> Markup:
    """`<div class="code"><pre><code>…</code></pre></div>`, model-written text escaped."""
    return Markup(highlight(source or "", PythonLexer(), _formatter()))


@cache
def code_css() -> Markup:
    """The colours of the highlighted tokens, scoped to `.code` (Pygments' page-wide rules left out)."""
    rules = _formatter().get_style_defs(f".{CSS_CLASS}").splitlines()
    return Markup("\n".join(rule for rule in rules if rule.startswith(f".{CSS_CLASS}")))
