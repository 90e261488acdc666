"""The CUDA samples' ``SharedMemory<T>``: a struct whose conversion operators hand out the
block's dynamic shared memory as a ``T *``, written as text simt already reads.

::

    template <class T> struct SharedMemory {
      __device__ inline operator T *() { extern __shared__ int __smem[]; return (T *)__smem; }
      __device__ inline operator const T *() const { ... the same ... }
    };
    template <> struct SharedMemory<double> { ... extern __shared__ double __smem_d[]; ... };
    ...
    T *sdata = SharedMemory<T>();

The struct becomes the function template ``template <class T> __device__ T *SharedMemory()``
with the body of its (non-const) conversion operator, so ``SharedMemory<T>()`` is an
ordinary template call; an explicit specialization whose operators have the same shape is
dropped, since every ``extern __shared__`` array of a block starts at the same address
whatever its declared type.  A struct (template or not) is rewritten only if it holds
nothing but such operators: each body is one ``extern __shared__`` array declaration and a
``return`` of that array (cast or not).

A struct with other members is left to ``simt.classes`` (where a conversion operator is
an error naming it).  Limitations: the object must be used as the temporary ``Name<T>()``
converted on the spot, not stored (``SharedMemory<T> s; T *p = s;`` is an error); the
lines of a rewritten struct keep their numbers but its columns are those of the rewritten
text.
"""
from __future__ import annotations

import re

_STRUCT = re.compile(r"(?:\btemplate\s*<(?P<params>[^<>]*)>\s*)?"
                     r"\b(?P<kw>struct|class)\s+(?P<name>[A-Za-z_]\w*)\s*(?P<spec><[^<>{};]*>)?\s*\{")
_OPERATOR = re.compile(r"(?:\b(?:__device__|__host__|__forceinline__|inline)\b\s*)*"
                       r"\boperator\s+(?P<const>const\s+)?(?P<type>[A-Za-z_]\w*)\s*\*\s*\(\s*\)"
                       r"\s*(?:const\s*)?\{")
_BODY = re.compile(r"\s*extern\s+__shared__\s+(?:__align__\s*\(\s*\d+\s*\)\s*)?(?:[A-Za-z_]\w*\s+)+"
                   r"(?P<arr>[A-Za-z_]\w*)\s*\[\s*\]\s*;\s*return\s*"
                   r"(?:\(\s*(?:const\s+)?[A-Za-z_]\w*\s*\*\s*\)\s*)?(?P=arr)\s*;\s*")


def rewrite(text: str, filename: str) -> str:
    """The file's ``SharedMemory<T>``-style structs as function templates (see the module
    docstring); other structs are left as they are."""
    if not re.search(r"\b(?:struct|class)\b", text):
        return text
    from .frontend import _blank, _match_brace

    out, pos = [], 0
    for m in _STRUCT.finditer(text):
        if m.start() < pos or text.count("{", 0, m.start()) != text.count("}", 0, m.start()):
            continue                                     # inside an earlier struct or a function
        close = _match_brace(text, m.end() - 1)
        semi = text.find(";", close)
        if close < 0 or semi < 0 or text[close + 1:semi].strip():
            continue
        body = text[m.end():close]
        if not re.search(r"\)\s*(?:const\s*)?\{", body):
            continue                                     # data members only: C's struct
        ops, rest, k = [], [], 0
        for om in _OPERATOR.finditer(body):
            if om.start() < k:
                continue
            oc = _match_brace(body, om.end() - 1)
            inner = body[om.end():oc]
            if oc < 0 or not _BODY.fullmatch(inner):
                break
            ops.append((om, inner))
            rest.append(body[k:om.start()])
            k = oc + 1
        rest.append(body[k:])
        leftover = re.sub(r"\b(?:public|private|protected)\s*:", "", "".join(rest))
        if not ops or leftover.strip(" \t\n;"):
            continue                                     # another class: simt.classes reads it
        start = m.start("kw")
        orig = text[start:semi + 1]
        if m.group("spec") is not None:                 # template <> struct X<double>: dropped
            out.append(text[pos:m.start()] + _blank(text[m.start():semi + 1]))
            pos = semi + 1
            continue
        om, inner = next(((o, b) for o, b in ops if not o.group("const")), ops[0])
        fn = f"__device__ {om.group('const') or ''}{om.group('type')} *{m.group('name')}() {{{inner}}}"
        fn += "\n" * (orig.count("\n") - fn.count("\n"))
        out.append(text[pos:start] + fn)
        pos = semi + 1
    out.append(text[pos:])
    return "".join(out)
