"""C++ namespaces, flattened: simt compiles one file, where a namespace only qualifies names.

::

    namespace util {
    namespace detail { __device__ float sq(float v) { return v * v; } }
    __device__ float twice(float v) { return 2.0f * detail::sq(v); }
    }
    namespace u = util;
    using namespace util;
    ... util::twice(x) + u::detail::sq(x) + twice(x) + ::util::twice(x)

Each ``namespace NAME {`` (``inline namespace``, ``namespace a::b {``, the anonymous
``namespace {``) and its closing brace are blanked, as are ``using namespace NAME;``,
``using NAME::name;`` and namespace aliases (``namespace u = util;``), and every
qualification by a namespace (``util::``, ``u::detail::``, a leading ``::``) is blanked too:
the rewrite keeps every length, so lines and columns hold.  What the namespaces held is
then declared at file scope, where a name defined in two of them would be defined twice:
that is an error naming both places (``simt.lower``).  ``using X = T;`` becomes ``typedef T
X;`` (a type alias is read at file scope only).

Limitations: names in different namespaces must differ; ``std::`` stays outside the
subset; alias templates (``template <...> using``) are not read.
"""
from __future__ import annotations

import re

from .errors import CompileError

_HEAD = re.compile(r"\b(?:inline\s+)?namespace\b(?:\s+(?P<name>[A-Za-z_]\w*(?:\s*::\s*[A-Za-z_]\w*)*))?\s*\{")
_ALIAS = re.compile(r"\bnamespace\s+(?P<alias>[A-Za-z_]\w*)\s*=\s*(?P<target>(?:::)?\s*[A-Za-z_]\w*"
                    r"(?:\s*::\s*[A-Za-z_]\w*)*)\s*;")
_USING_NS = re.compile(r"\busing\s+namespace\s+(?:::)?\s*[A-Za-z_]\w*(?:\s*::\s*[A-Za-z_]\w*)*\s*;")
_TYPE_ALIAS = re.compile(r"\busing\s+(?P<name>[A-Za-z_]\w*)\s*=\s*(?P<type>[^;{}]+);")


def _blank(s: str) -> str:
    return re.sub(r"[^\n]", " ", s)


def rewrite(text: str, filename: str) -> str:
    """The file with its namespaces flattened (see the module docstring)."""
    if not re.search(r"\b(?:namespace|using)\b|(?<![\w>)\]\s])\s*::", text):
        return text
    from .frontend import _coord_of, _match_brace

    names: set[str] = set()
    out = list(text)

    def blank(a, b):
        for k in range(a, b):
            if out[k] != "\n":
                out[k] = " "

    for m in _ALIAS.finditer(text):
        names.add(m.group("alias"))
        names.update(re.findall(r"[A-Za-z_]\w*", m.group("target")))
        blank(m.start(), m.end())
    for m in _HEAD.finditer(text):
        if out[m.start()] == " ":                        # (inside an alias already blanked)
            continue
        close = _match_brace(text, m.end() - 1)
        if close < 0:
            raise CompileError("unbalanced braces after this namespace", _coord_of(text, m.start(), filename))
        if m.group("name"):
            names.update(re.findall(r"[A-Za-z_]\w*", m.group("name")))
        blank(m.start(), m.end())
        out[close] = " "
    for m in _USING_NS.finditer(text):
        names.update(re.findall(r"[A-Za-z_]\w*", m.group(0))[2:])
        blank(m.start(), m.end())
    text = "".join(out)
    if names:
        qual = re.compile(r"(?:(?<![\w>)\]\s])\s*::\s*)?\b(?:(?:" + "|".join(map(re.escape, sorted(names)))
                          + r")\s*::\s*)+")

        def unqualify(m):
            return " " * len(m.group(0))
        # using util::twice;  (a using-declaration: the name is already at file scope)
        text = re.sub(r"\busing\s+(?:::\s*)?(?:(?:" + "|".join(map(re.escape, sorted(names)))
                      + r")\s*::\s*)+[A-Za-z_]\w*\s*;", lambda m: _blank(m.group(0)), text)
        text = qual.sub(unqualify, text)
    # a leading :: (the global namespace): ::f(x)
    text = re.sub(r"(?<![\w>)\]\s])(\s*)::(?=\s*[A-Za-z_])", lambda m: m.group(1) + "  ", text)
    return _type_aliases(text)


def _type_aliases(text: str) -> str:
    """``using X = T;`` -> ``typedef T X;`` (the columns after it on that line shift by the
    difference; inside a function, a typedef is outside the subset)."""
    if "using" not in text:
        return text
    out, pos = [], 0
    for m in _TYPE_ALIAS.finditer(text):
        new = f"typedef {m.group('type').strip()} {m.group('name')};"
        out.append(text[pos:m.start()] + new + " " * max(0, len(m.group(0)) - len(new)))
        pos = m.end()
    out.append(text[pos:])
    return "".join(out)
