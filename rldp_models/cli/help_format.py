"""Plain-text ``--help``: module docstrings without reStructuredText markup.

Subcommand descriptions are the modules' numpydoc docstrings, written for the
API documentation; on a terminal ``:mod:`x```, ````--eps```` and ``**word**``
read as noise. :class:`PlainTextHelpFormatter` strips the markup and keeps the
docstring's paragraphs, bullet lists and tables instead of running them into
one block.
"""

from __future__ import annotations

import argparse
import re
import textwrap

_ROLE = re.compile(r":[a-z]+(?::[a-z]+)?:`~?([^`<]*?)(?:\s*<[^>]*>)?`")
_LITERAL = re.compile(r"``(.+?)``")
_EMPHASIS = re.compile(r"\*\*(.+?)\*\*|(?<![\w*])\*(?!\s)([^*]+?)\*(?!\w)")
_INTERPRETED = re.compile(r"`([^`]+?)`")


def plain_text(text: str) -> str:
    """``text`` with reStructuredText roles, literals and emphasis reduced to their words.

    ``:func:`~a.b.c``` becomes ``c`` (the tilde's short form), ``:mod:`a.b```
    becomes ``a.b``; double-backquoted literals lose their backquotes.
    """
    text = _ROLE.sub(lambda m: _short_name(m.group(0), m.group(1)), text)
    text = _LITERAL.sub(r"\1", text)
    text = _EMPHASIS.sub(lambda m: m.group(1) or m.group(2), text)
    return _INTERPRETED.sub(r"\1", text)


def _short_name(role: str, target: str) -> str:
    target = target.strip()
    return target.rsplit(".", 1)[-1] if "`~" in role else target


class PlainTextHelpFormatter(argparse.HelpFormatter):
    """A help formatter that strips reStructuredText and keeps paragraphs and lists."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        paragraphs = textwrap.dedent(plain_text(text)).strip().split("\n\n")
        return "\n\n".join(_fill_paragraph(p, width, indent) for p in paragraphs)

    def _split_lines(self, text: str, width: int) -> list[str]:
        return super()._split_lines(plain_text(text), width)


def _fill_paragraph(paragraph: str, width: int, indent: str) -> str:
    lines = paragraph.splitlines()
    if any(line.lstrip().startswith("===") for line in lines):
        return "\n".join(indent + line for line in lines)  # a table: keep its layout
    if lines and lines[0].lstrip().startswith(("* ", "- ")):
        return "\n".join(_fill_bullet(item, width, indent) for item in _bullets(lines))
    return textwrap.fill(" ".join(line.strip() for line in lines), width,
                         initial_indent=indent, subsequent_indent=indent)


def _bullets(lines: list[str]) -> list[str]:
    items: list[str] = []
    for line in lines:
        if line.lstrip().startswith(("* ", "- ")) or not items:
            items.append(line.strip()[2:])
        else:
            items[-1] += " " + line.strip()
    return items


def _fill_bullet(item: str, width: int, indent: str) -> str:
    return textwrap.fill(item, width, initial_indent=indent + "* ",
                         subsequent_indent=indent + "  ")
