"""``memcpy`` and ``memset`` in device code, as the C functions they are.

nvcc lets device code call both without an include; simt gives a file that calls them
(and does not define them itself) these definitions, parsed as the file ``<string.h>``:
a copy or fill a 32-bit word at a time where both addresses and the count are multiples
of 4, a byte at a time otherwise.

Limitations: nvcc expands a call with a constant count into moves (registers, for a
local array it keeps there, or 4-, 8- and 16-byte loads and stores); here it is a loop,
so the instruction count of a large copy is higher than the GPU's and its accesses are
32-bit ones.  The address of a local scalar or struct (``memcpy(&p, src, sizeof p)``) is
an error, as it is wherever simt cannot follow a pointer to a register variable: copy
into a one-element array, or assign (``p = *(const P *)src``).  ``memmove``, ``memcmp`` and ``strlen`` are not given.
"""
from __future__ import annotations

import re

PRELUDE = r"""
__device__ void *memcpy(void *dst, const void *src, size_t n) {
    if ((((size_t)dst | (size_t)src | n) & 3) == 0) {
        for (size_t k = 0; k < n / 4; k++)
            ((unsigned int *)dst)[k] = ((const unsigned int *)src)[k];
    } else {
        for (size_t k = 0; k < n; k++)
            ((unsigned char *)dst)[k] = ((const unsigned char *)src)[k];
    }
    return dst;
}
__device__ void *memset(void *dst, int c, size_t n) {
    if ((((size_t)dst | n) & 3) == 0) {
        unsigned int v = (unsigned int)(c & 0xff) * 0x01010101u;
        for (size_t k = 0; k < n / 4; k++)
            ((unsigned int *)dst)[k] = v;
    } else {
        for (size_t k = 0; k < n; k++)
            ((unsigned char *)dst)[k] = (unsigned char)c;
    }
    return dst;
}
"""

_CALL = re.compile(r"\b(memcpy|memset)\s*\(")
_OWN = re.compile(r"\b(?:memcpy|memset)\s*\([^;{)]*\)\s*\{")


def rewrite(text: str, filename: str) -> str:
    """``text`` with the definitions in front where it calls memcpy or memset and defines
    neither (a file that defines its own keeps it)."""
    if not _CALL.search(text) or _OWN.search(text):
        return text
    return ('#line 1 "<string.h>"\n' + PRELUDE + "\n"
            + (text if text.lstrip().startswith("#") else f'#line 1 "{filename}"\n' + text))
