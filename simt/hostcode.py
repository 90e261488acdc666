"""Host code in a ``.cu`` file, blanked: simt runs kernels, a whole program's ``main`` is text
it never needs to read.

A file written for nvcc often holds its host program too (``int main()`` with
``cudaMalloc``, ``kernel<<<grid, block>>>(...)``, a ``CUDA_CHECK`` macro, ``std::vector``,
``printf``; a LeetGPU-style ``extern "C" void solve(...)`` wrapper).  nvcc's device pass
skips it; so does simt: after preprocessing, every function definition at file scope
(namespace blocks and ``extern "C" { ... }`` count as file scope) that is neither
``__global__`` nor ``__device__`` -- unannotated or ``__host__`` only -- has its whole text,
its ``template <...>`` head included, blanked, newlines kept, so coordinates stay true.
``__host__ __device__`` functions stay, and so do ``constexpr`` ones (nvcc's
``--expt-relaxed-constexpr`` lets device code call them).  Host prototypes (``void
launch(float *x, int n);``) go too, as do file-scope host variables whose type the parser
cannot read (``std::vector<float> h;``, ``cudaStream_t s;``).

The names go back to the lowering (``blank``), so a call from device code to a host
function is nvcc's error, naming where the function is, not "undefined".

Limitations: members defined outside their class (``void Timer::start() {...}``) are not
blanked (they are read as before); a file-scope lambda is left alone.
"""
from __future__ import annotations

import re

from .templates import skip_string

# words that make a definition device code
_DEVICE = re.compile(r"\b(?:__global__|__device__|constexpr)\b")
# the end of a function's head: ``name(params) [const] [noexcept] [-> T]``
_TAIL = re.compile(r"\)\s*(?:(?:const|noexcept|override|final|volatile)\b\s*)*(?:->\s*[\w:<>,*&\s]+)?$")
_TRANSPARENT = re.compile(r'(?:\b(?:inline\s+)?namespace\b[\w\s:]*|\bextern\s*"C"\s*)$')
_HOST_TYPES = re.compile(r"\bstd\s*::|\bcuda[A-Za-z]*_t\b|\bcublas\w*_t\b")
_NEXT = re.compile(r"[#/\"'{};]")       # what the scan stops at
_BASIC = frozenset("void bool char short int long unsigned signed float double size_t".split())


def _skip_comment(text: str, i: int) -> int:
    if text.startswith("//", i):
        j = text.find("\n", i)
        return len(text) if j < 0 else j
    j = text.find("*/", i + 2)
    return len(text) if j < 0 else j + 2




def _function_name(head: str) -> tuple[str, int] | None:
    """The name a function head declares and its offset, or None when the head is not an
    unqualified function declarator (``int main(...)``, ``void solve(...) const``)."""
    m = _TAIL.search(head)
    if not m:
        return None
    close = m.start()
    depth, j = 0, close
    while j >= 0:                        # back to the ( matching the last )
        depth += {")": 1, "(": -1}.get(head[j], 0)
        if depth == 0:
            break
        j -= 1
    if j < 0:
        return None
    nm = re.search(r"(operator\s*(?:\(\)|\[\]|[^\s\w(]+)|[A-Za-z_]\w*)\s*$", head[:j])
    if not nm or re.search(r"::\s*$", head[:nm.start()]) or re.search(r"[=\]]\s*$|\[", head[:j]):
        return None                      # qualified (Class::f), or a lambda
    name = nm.group(1)
    if name in ("if", "while", "for", "switch", "return", "sizeof", "__launch_bounds__", "__align__"):
        return None
    if not re.search(r"[\w*&>]\s*$", head[:nm.start()]):
        return None                      # no return type: a macro call, not a definition
    return name, nm.start(1)


def _is_parameter_list(params: str) -> bool:
    """Whether ``(params)`` declares parameters (``float *x, int n``; ``void``; ``float``),
    not a direct initializer's arguments (``h(n)``, ``grid(16, 16)``)."""
    params = params.strip()
    if params in ("", "void", "..."):
        return True
    for part in params.split(","):
        part = re.sub(r"=.*", "", part).strip()
        words = re.findall(r"[A-Za-z_]\w*", part)
        if not ("*" in part or "&" in part or len(words) >= 2 or (words and words[0] in _BASIC)):
            return False
    return True


def blank(text: str) -> tuple[str, list[tuple[str, str, int]]]:
    """``text`` with its host-only functions, prototypes and unreadable host variables
    blanked, and ``(kind, name, offset of the name)`` for each, kind "function" or
    "variable"."""
    from .frontend import _match_brace
    out = list(text)
    found: list[tuple[str, str, int]] = []
    head = 0                   # where the current file-scope declaration starts
    i, n = 0, len(text)

    def wipe(a: int, b: int) -> None:
        out[a:b] = re.sub(r"[^\n]", " ", text[a:b])

    while i < n:
        m = _NEXT.search(text, i)
        if m is None:
            break
        i = m.start()
        c = text[i]
        if c == "#" and text[text.rfind("\n", 0, i) + 1:i].strip() == "":
            j = i
            while True:                  # a directive, with its continuation lines
                j = text.find("\n", j)
                if j < 0 or text[j - 1] != "\\":
                    break
                j += 1
            i = head = n if j < 0 else j + 1
            continue
        if text.startswith("//", i) or text.startswith("/*", i):
            i = _skip_comment(text, i)
            continue
        if c in "\"'":
            i = skip_string(text, i)
            continue
        if c == "}":                     # the end of a namespace or extern "C" block
            i = head = i + 1
            continue
        if c == ";":
            _declaration(text, head, i + 1, wipe, found)
            i = head = i + 1
            continue
        if c != "{":                     # a / that starts no comment
            i += 1
            continue
        h = text[head:i]
        if _TRANSPARENT.search(h):
            i = head = i + 1
            continue
        close = _match_brace(text, i)
        if close < 0:
            return "".join(out), found   # unbalanced: the parser says where
        got = _function_name(h.rstrip())
        if got is not None and not _DEVICE.search(h):
            start = head + len(h) - len(h.lstrip())
            found.append(("function", got[0], head + got[1]))
            wipe(start, close + 1)
        i = head = close + 1
    return "".join(out), found


def _declaration(text: str, a: int, b: int, wipe, found) -> None:
    """A file-scope declaration ``text[a:b]`` (up to its ``;``): blank it if it is a host
    prototype or a host variable of a type only host code has."""
    d = text[a:b - 1]
    if not d.strip() or re.search(r"\b(?:__global__|__device__|__constant__|__shared__|__managed__|"
                                  r"typedef|using|template|namespace|static_assert|struct|class|"
                                  r"union|enum)\b", d) or "{" in d:
        return
    got = _function_name(d.rstrip())
    if got is not None:
        params = d[d.index("(", got[1]) + 1:d.rstrip().rindex(")")]
        if _is_parameter_list(params) and "=" not in d[:got[1]]:
            found.append(("function", got[0], a + got[1]))
            wipe(a, b)
            return
    if _HOST_TYPES.search(d):
        pre = re.split(r"[=(\[{,]", d)[0]
        flat = pre
        while re.search(r"<[^<>]*>", flat):              # template arguments out of the way
            flat = re.sub(r"<[^<>]*>", lambda m: " " * len(m.group(0)), flat)
        names = list(re.finditer(r"[A-Za-z_]\w*", flat))
        if names:
            found.append(("variable", names[-1].group(0), a + names[-1].start()))
        wipe(a, b)
