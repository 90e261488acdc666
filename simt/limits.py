"""``std::numeric_limits<T>`` (``<limits>``, and libcu++'s ``cuda::std::numeric_limits`` of
``<cuda/std/limits>``) read as the constants they return.

::

    float best = cuda::std::numeric_limits<float>::max();
    int lo = std::numeric_limits<int>::lowest();

Each ``numeric_limits<T>::f()`` for an arithmetic ``T`` and ``f`` one of ``max``, ``min``,
``lowest``, ``epsilon``, ``infinity``, ``quiet_NaN`` and ``denorm_min`` becomes the literal
(or bit cast) the headers return, padded with blanks where it is shorter, so the columns
after it hold; the members ``digits`` and ``is_signed`` become their integers.

Limitations: ``T`` must be spelled as a built-in type (``float``, ``unsigned int``,
``long long``, ``__half`` is not one), not a template parameter or a typedef of the file's;
anything else is an error naming the place.  A real ``std::numeric_limits`` in device code
needs nvcc's ``--expt-relaxed-constexpr`` (``cuda::std::`` does not), which simt does not
check.
"""
from __future__ import annotations

import re

from .errors import CompileError

_LIMITS = re.compile(r"(?:::\s*)?(?:cuda\s*::\s*)?(?:std\s*::\s*)?\bnumeric_limits\s*<\s*(?P<t>[^<>;]*?)\s*>"
                     r"\s*::\s*(?P<m>\w+)(?P<call>\s*\(\s*\))?")

_F32 = {"max": "3.40282347e+38F", "min": "1.17549435e-38F", "lowest": "(-3.40282347e+38F)",
        "epsilon": "1.19209290e-07F", "infinity": "__int_as_float(0x7f800000)",
        "quiet_NaN": "__int_as_float(0x7fc00000)", "denorm_min": "1.40129846e-45F",
        "digits": "24", "is_signed": "1"}
_F64 = {"max": "1.7976931348623157e+308", "min": "2.2250738585072014e-308",
        "lowest": "(-1.7976931348623157e+308)", "epsilon": "2.2204460492503131e-16",
        "infinity": "__longlong_as_double(0x7ff0000000000000LL)",
        "quiet_NaN": "__longlong_as_double(0x7ff8000000000000LL)",
        "denorm_min": "4.9406564584124654e-324", "digits": "53", "is_signed": "1"}


def _integer(bits: int, signed: bool, suffix: str, cast: str) -> dict:
    hi = (1 << (bits - 1)) - 1 if signed else (1 << bits) - 1
    lo = f"(({cast})(-{hi}{suffix} - 1))" if signed else f"(({cast})0)"
    top = f"(({cast}){hi}{suffix})"
    zero = f"(({cast})0)"
    return {"max": top, "min": lo, "lowest": lo, "epsilon": zero, "infinity": zero,
            "quiet_NaN": zero, "denorm_min": zero, "digits": str(bits - 1 if signed else bits),
            "is_signed": "1" if signed else "0"}


_TYPES = {
    "float": _F32, "double": _F64,
    "char": _integer(8, True, "", "char"), "signed char": _integer(8, True, "", "signed char"),
    "unsigned char": _integer(8, False, "", "unsigned char"),
    "short": _integer(16, True, "", "short"), "unsigned short": _integer(16, False, "", "unsigned short"),
    "int": _integer(32, True, "", "int"), "unsigned int": _integer(32, False, "U", "unsigned int"),
    "long": _integer(64, True, "L", "long"), "unsigned long": _integer(64, False, "UL", "unsigned long"),
    "long long": _integer(64, True, "LL", "long long"),
    "unsigned long long": _integer(64, False, "ULL", "unsigned long long"),
    "bool": {"max": "1", "min": "0", "lowest": "0", "digits": "1", "is_signed": "0"},
}
_SPELLINGS = {"unsigned": "unsigned int", "signed": "int", "signed int": "int", "short int": "short",
              "unsigned short int": "unsigned short", "long int": "long", "long long int": "long long",
              "unsigned long int": "unsigned long", "unsigned long long int": "unsigned long long",
              "int32_t": "int", "uint32_t": "unsigned int", "int64_t": "long long",
              "uint64_t": "unsigned long long", "int16_t": "short", "uint16_t": "unsigned short",
              "int8_t": "signed char", "uint8_t": "unsigned char", "size_t": "unsigned long"}
_VALUES = ("digits", "is_signed")


def rewrite(text: str, filename: str, coord_of) -> str:
    """Each ``numeric_limits<T>::f()`` in ``text`` as its value (see the module's doc);
    ``coord_of(text, pos, filename)`` places an error."""
    out, last = [], 0
    for m in _LIMITS.finditer(text):
        t = " ".join(m.group("t").replace("const", " ").split())
        t = _SPELLINGS.get(t, t)
        member, called = m.group("m"), m.group("call") is not None
        table = _TYPES.get(t)
        if table is None:
            raise CompileError(f"numeric_limits<{m.group('t').strip()}> is outside simt's subset: "
                               "simt reads it for the built-in arithmetic types spelled out "
                               "(float, double, int, unsigned int, long long, ...)",
                               coord_of(text, m.start(), filename))
        if member not in table or called == (member in _VALUES):
            what = f"{member}()" if called else member
            raise CompileError(f"numeric_limits<{t}>::{what} is outside simt's subset (it reads "
                               "max(), min(), lowest(), epsilon(), infinity(), quiet_NaN(), "
                               "denorm_min(), digits and is_signed)", coord_of(text, m.start(), filename))
        value = table[member]
        span = m.group(0)
        out.append(text[last:m.start()])
        out.append(value + " " * max(0, len(span) - len(value) - span.count("\n")) + "\n" * span.count("\n"))
        last = m.end()
    out.append(text[last:])
    return "".join(out)
