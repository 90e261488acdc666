"""C++11's range-based ``for`` over an array, read as the counted loop it means.

::

    float w[4] = {1, 2, 3, 4};
    for (float v : w) acc += v;          // for (int __rf0 = 0; __rf0 < 4; ++__rf0)
    for (auto &v : w) { v *= 2.0f; }     //     { auto &v = (w)[__rf0]; ... }

The loop's head becomes a counter running over ``sizeof(range) / sizeof((range)[0])``
elements and the declaration opens the body, initialized from the element (a reference
``&v`` is bound to it, so writes go to the array).  A body without braces is given them,
around the whole statement (an ``if`` with its ``else``, a loop with its body).  The text keeps its lines (what is added goes on the lines where it
belongs), so errors still name the right line; columns after an insertion on its line
shift.

Limitations: the range must be an array whose size the declaration gives (a local,
``__shared__`` or struct-member array): a pointer's ``sizeof`` is not the array's, and
simt cannot tell them apart here (nvcc rejects a pointer).  Containers with ``begin()`` and
``end()`` are not read.
"""
from __future__ import annotations

import re

from .errors import CompileError
from .templates import close_paren, skip_string

_HEAD = re.compile(r"\bfor\s*\(")
_DECL = re.compile(r"\s*(?P<decl>(?:[A-Za-z_][\w:<>, ]*?)[\s*&]*?(?P<name>[A-Za-z_]\w*))\s*:(?!:)\s*")
_COMPOUND = re.compile(r"(?:if|for|while|do|switch)\b")  # statements that hold statements


def _top_level(text: str, a: int, b: int | None = None):
    """(position, character) of each character of text[a:b] outside brackets, string and
    character literals; the last is the bracket that closes one opened before a, if any."""
    b = len(text) if b is None else b
    depth, i = 0, a
    while i < b:
        c = text[i]
        if c in "\"'":
            i = skip_string(text, i)
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth < 0:
                yield i, c
                return
        elif depth == 0:
            yield i, c
        i += 1


def _colon(text: str, a: int, b: int) -> int:
    """The position of a lone ``:`` at depth 0 in text[a:b] (not ``::``, not in ``?:``), or -1."""
    q = 0
    for i, c in _top_level(text, a, b):
        if c == ";":
            return -1
        if c == "?":
            q += 1
        elif c == ":" and ":" not in (text[i - 1], text[i + 1:i + 2]):
            if not q:
                return i
            q -= 1
    return -1


def _statement_end(text: str, i: int) -> int:
    """One past the statement that starts at i (a simple one's ``;``, a block's ``}``, an
    ``if`` with its ``else``, a loop with its body), or -1."""
    while i < len(text) and text[i] in " \t\r\n":
        i += 1
    m = _COMPOUND.match(text, i)
    if m:
        word = m.group(0)
        j = _statement_end(text, m.end()) if word == "do" else -1
        if word == "do":
            w = re.compile(r"\s*while\s*\(").match(text, j) if j >= 0 else None
            return -1 if not w else _ending(text, close_paren(text, w.end()), ";")
        p = re.compile(r"\s*\(").match(text, m.end())
        if not p:
            return -1
        j = _statement_end(text, close_paren(text, p.end()))
        if j < 0 or word != "if":
            return j
        e = re.compile(r"\s*else\b").match(text, j)
        return _statement_end(text, e.end()) if e else j
    if text.startswith("{", i):
        return _ending(text, i + 1, "}")
    return _ending(text, i, ";")


def _ending(text: str, i: int, end: str) -> int:
    """One past the first ``end`` outside brackets from i on (``}``: the one closing the
    block i is in), or -1."""
    for j, c in _top_level(text, i):
        if c == end:
            return j + 1
    return -1


def rewrite(text: str, filename: str, coord_of) -> str:
    """Every range-based ``for`` in ``text`` as a counted loop (see the module's doc)."""
    k = 0
    pos = 0
    while True:
        m = _HEAD.search(text, pos)
        if not m:
            return text
        pos = m.end()
        close = close_paren(text, m.end())          # one past the head's ')'
        colon = _colon(text, m.end(), close - 1)
        if colon < 0:
            continue
        d = _DECL.fullmatch(text, m.end(), colon + 1)
        if not d:
            raise CompileError("cannot read this range-based for: write for (T v : array)",
                               coord_of(text, m.start(), filename))
        rng = text[colon + 1:close - 1].strip()
        var = f"__rf{k}"
        k += 1
        head = (f"for (int {var} = 0; {var} < (int)(sizeof({rng}) / sizeof(({rng})[0])); ++{var})")
        decl = f" {d.group('decl').strip()} = ({rng})[{var}];"
        body = close
        while body < len(text) and text[body] in " \t\r\n":
            body += 1
        if text.startswith("{", body):
            new_body = text[close:body + 1] + decl + text[body + 1:]
        else:
            end = _statement_end(text, body)
            if end < 0:
                raise CompileError("cannot find the end of this range-based for's body",
                                   coord_of(text, body, filename))
            new_body = text[close:body] + "{" + decl + " " + text[body:end] + " }" + text[end:]
        lines = text[m.start():close].count("\n")
        text = text[:m.start()] + head + "\n" * lines + new_body
        pos = m.start() + len(head)
