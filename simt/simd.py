"""CUDA's SIMD intrinsics: per-byte (``...4``) and per-half-word (``...2``) arithmetic on
the parts of an ``unsigned int`` (``__vadd4``, ``__vabsdiffu4``, ``__vsadu4``,
``__vcmpgtu2``, ...), as video-coding and image courses use them.

``SIMD_CALLS`` maps each name to its numpy function over lanes' values; each is built
from ``_ELEMENT``, a table of what one part computes from its operands (as signed or
unsigned integers of 8 or 16 bits), and the way parts go back together: wrapped to the
part's width, or summed (``__vsads``/``__vsadu``).  ``SIMD_ARITY`` gives the number of
operands.

Limitations: Hopper's DPX functions (``__vimax3_s32``, ``__viaddmax_s32``, ...) are not
among them.
"""
from __future__ import annotations

import numpy as np

# (operation, signed parts?) -> one part's value from the parts' values (int64 arrays)
# and the part's bit width; the result is wrapped to the width (or summed, for sad)
_LIM = {True: lambda w: (-(1 << (w - 1)), (1 << (w - 1)) - 1), False: lambda w: (0, (1 << w) - 1)}


def _sat(signed):
    return lambda v, w: np.clip(v, *_LIM[signed](w))


def _avgs(a, b, w):
    s = a + b                  # (a + b) >> 1 when negative, (a + b + 1) >> 1 otherwise
    return np.where(s < 0, s >> 1, (s + 1) >> 1)


_ELEMENT = {
    "abs": (True, 1, lambda a, w: np.abs(a)),
    "absss": (True, 1, lambda a, w: _sat(True)(np.abs(a), w)),
    "neg": (True, 1, lambda a, w: -a),
    "negss": (True, 1, lambda a, w: _sat(True)(-a, w)),
    "add": (False, 2, lambda a, b, w: a + b),
    "addss": (True, 2, lambda a, b, w: _sat(True)(a + b, w)),
    "addus": (False, 2, lambda a, b, w: _sat(False)(a + b, w)),
    "sub": (False, 2, lambda a, b, w: a - b),
    "subss": (True, 2, lambda a, b, w: _sat(True)(a - b, w)),
    "subus": (False, 2, lambda a, b, w: _sat(False)(a - b, w)),
    "absdiffs": (True, 2, lambda a, b, w: np.abs(a - b)),
    "absdiffu": (False, 2, lambda a, b, w: np.abs(a - b)),
    "avgs": (True, 2, _avgs),
    "avgu": (False, 2, lambda a, b, w: (a + b + 1) >> 1),
    "haddu": (False, 2, lambda a, b, w: (a + b) >> 1),
    "maxs": (True, 2, lambda a, b, w: np.maximum(a, b)),
    "maxu": (False, 2, lambda a, b, w: np.maximum(a, b)),
    "mins": (True, 2, lambda a, b, w: np.minimum(a, b)),
    "minu": (False, 2, lambda a, b, w: np.minimum(a, b)),
    "sads": (True, 2, lambda a, b, w: np.abs(a - b)),
    "sadu": (False, 2, lambda a, b, w: np.abs(a - b)),
}
_COMPARE = {"eq": np.equal, "ne": np.not_equal, "ge": np.greater_equal, "gt": np.greater,
            "le": np.less_equal, "lt": np.less}
for _c, _f in _COMPARE.items():
    for _s in (("",) if _c in ("eq", "ne") else ("s", "u")):
        # __vcmp: all ones in a part where it holds; __vset: 1
        _ELEMENT["cmp" + _c + _s] = (_s == "s", 2, lambda a, b, w, f=_f: -f(a, b).astype(np.int64))
        _ELEMENT["set" + _c + _s] = (_s == "s", 2, lambda a, b, w, f=_f: f(a, b).astype(np.int64))


def _parts(x, n: int, signed: bool) -> list:
    w = 32 // n
    x = np.asarray(x).astype(np.uint32).astype(np.int64)
    out = []
    for k in range(n):
        p = (x >> (w * k)) & ((1 << w) - 1)
        out.append(np.where(p >> (w - 1), p - (1 << w), p) if signed else p)
    return out


def _simd(op: str, n: int):
    signed, arity, f = _ELEMENT[op]
    w = 32 // n

    def call(*xs):
        per = [f(*vals, w) for vals in zip(*(_parts(x, n, signed) for x in xs))]
        if op.startswith("sad"):
            return sum(per).astype(np.uint32)
        out = np.zeros_like(per[0])
        for k, v in enumerate(per):
            out |= (v & ((1 << w) - 1)) << (w * k)
        return out.astype(np.uint32)
    return call


SIMD_CALLS = {f"__v{op}{n}": _simd(op, n) for op in _ELEMENT for n in (2, 4)}
SIMD_ARITY = {f"__v{op}{n}": _ELEMENT[op][1] for op in _ELEMENT for n in (2, 4)}
