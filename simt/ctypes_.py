"""C types of the CUDA subset and their numpy storage, as tables.

Scalars map one-to-one onto numpy dtypes, so arithmetic wraps and rounds the way CUDA
does (int32 overflow, float32 rounding).  ``usual_arith`` implements C's usual
arithmetic conversions (integer promotion, then the common real type).

``__half`` (``half``, ``cuda_fp16.h``) is a 2-byte IEEE binary16 scalar stored as numpy
``float16``.  In CUDA it is a class with converting constructors and conversion
operators, not an arithmetic type: ``usual_arith`` does not apply to it (the lowering
types its operators as ``cuda_fp16.hpp`` overloads them, ``simt.lower``).  ``__half2``
is the vector of two (4 bytes, aligned to 4; members ``x`` and ``y``).  ``__nv_bfloat16``
(``nv_bfloat16``, ``cuda_bf16.h``) is typed the same way but held as its uint16 bit
pattern (the top half of a float32); ``simt.ops`` widens it for every operation.

Limitations: ``long`` is 64-bit (LP64, as nvcc on Linux); ``long double`` is treated as
``double``; enums are ``int``; bit-fields are outside the subset.  A union (``Union``) is
laid out as nvcc lays it out: every member at offset 0, the size of the largest member
rounded up to the largest alignment.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class CType:
    def is_scalar(self) -> bool:
        return False

    def is_pointer(self) -> bool:
        return False


@dataclass(frozen=True)
class Scalar(CType):
    name: str          # canonical C spelling: "int", "unsigned int", "float", ...
    dtype: np.dtype
    rank: int          # integer conversion rank (floats: 100+)

    def is_scalar(self) -> bool:
        return True

    @property
    def is_float(self) -> bool:
        return self.dtype.kind == "f"

    @property
    def is_signed(self) -> bool:
        return self.dtype.kind in "if"

    @property
    def is_bool(self) -> bool:
        return self.dtype.kind == "b"

    @property
    def is_half(self) -> bool:
        """``__half``: a float in storage, a class type in C++ (no built-in arithmetic)."""
        return self.dtype == np.float16

    @property
    def is_bf16(self) -> bool:
        """``__nv_bfloat16``: uint16 bits in storage, a class type in C++."""
        return self.name == "__nv_bfloat16"

    @property
    def size(self) -> int:
        return self.dtype.itemsize

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class Void(CType):
    def __str__(self) -> str:
        return "void"


@dataclass(frozen=True)
class Pointer(CType):
    base: CType
    const: bool = False
    volatile: bool = field(default=False, compare=False)   # loads through it are never merged

    def is_pointer(self) -> bool:
        return True

    @property
    def size(self) -> int:
        return 8

    def __str__(self) -> str:
        return f"{'const ' if self.const else ''}{self.base} *"


@dataclass(frozen=True)
class Array(CType):
    elem: CType
    length: int | None      # None: unsized (extern __shared__ x[])

    @property
    def size(self) -> int:
        return sizeof(self.elem) * (self.length or 0)

    def __str__(self) -> str:
        return f"{self.elem}[{'' if self.length is None else self.length}]"


@dataclass(frozen=True)
class Vector(CType):
    """CUDA's built-in vector structs: dim3/uint3, int2/int4, float2/float4, ..."""
    name: str
    elem: Scalar
    n: int

    @property
    def fields(self) -> tuple[str, ...]:
        return ("x", "y", "z", "w")[: self.n]

    @property
    def size(self) -> int:
        return self.elem.size * self.n

    @property
    def align(self) -> int:
        return {1: 1, 2: 2, 3: 1, 4: 4}[self.n] * self.elem.size if self.n != 3 else self.elem.size

    @property
    def one_access(self) -> bool:
        """Whether nvcc loads and stores it in one instruction (``LDG.64`` for a float2,
        ``LDG.128`` for a float4); a 3-vector is aligned to its element only, so it is
        three (a float3: three ``LDG.E``)."""
        return self.align == self.size

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class Struct(CType):
    """A user-defined struct of scalars, pointers, vectors, structs and fixed-size arrays
    of them, laid out as C (and nvcc) lay it out: each member at the next multiple of its
    alignment (an array's is its element's), the size rounded up to the largest
    alignment.  Limitations: no flexible array members, no bit-fields."""
    name: str
    members: tuple          # ((name, CType, offset), ...)
    size: int
    align: int
    display: str = field(default="", compare=False)   # a class template instance: Pair<float>

    @property
    def fields(self) -> tuple[str, ...]:
        return tuple(m[0] for m in self.members)

    @property
    def dtype(self) -> np.dtype:
        """The numpy structured dtype with the same layout (for host arrays)."""
        def fmt(t):
            if isinstance(t, Array):              # float v[4]: a subarray, (2, 3) for m[2][3]
                dims, elem = array_dims(t)
                return np.dtype((fmt(elem), dims))
            if isinstance(t, Vector):
                return np.dtype((storage_dtype(t.elem), (t.n,)))
            return t.dtype if isinstance(t, Struct) else storage_dtype(t)
        return np.dtype({"names": list(self.fields),
                         "formats": [fmt(t) for _, t, _ in self.members],
                         "offsets": [o for _, _, o in self.members], "itemsize": self.size})

    def __str__(self) -> str:
        return f"struct {self.display or self.name}"


@dataclass(frozen=True)
class Union(Struct):
    """A union: every member at offset 0, the size that of the largest rounded up to the
    largest alignment (nvcc's layout).  Its value is its bytes: ``words`` (unsigned
    integers as wide as its alignment, at most 8 bytes) are what a copy moves."""

    @property
    def words(self) -> list:
        """[(name, unsigned Scalar, byte offset)] covering the union's bytes."""
        w = min(self.align, 8)
        t = {1: UCHAR, 2: USHORT, 4: UINT, 8: ULLONG}[w]
        return [(f"_w{k}", t, k * w) for k in range(self.size // w)]

    def __str__(self) -> str:
        return f"union {self.display or self.name}"


def make_union(name: str, members: list, display: str = "") -> Union:
    """A Union from [(name, CType)]: C's layout (every member at 0)."""
    size = max((sizeof(t) for _, t in members), default=0)
    align = max((alignof(t) for _, t in members), default=1)
    return Union(name, tuple((n, t, 0) for n, t in members), -(-size // align) * align, align, display)


def make_struct(name: str, members: list, display: str = "") -> Struct:
    """A Struct from [(name, CType)], with C's layout."""
    out, off, align = [], 0, 1
    for n, t in members:
        a = alignof(t)
        off = -(-off // a) * a
        out.append((n, t, off))
        off += sizeof(t)
        align = max(align, a)
    return Struct(name, tuple(out), -(-off // align) * align if out else 0, align, display)


def _s(name, dt, rank):
    return Scalar(name, np.dtype(dt), rank)


BOOL = _s("bool", np.bool_, 0)
CHAR = _s("char", np.int8, 1)
SCHAR = _s("signed char", np.int8, 1)
UCHAR = _s("unsigned char", np.uint8, 1)
SHORT = _s("short", np.int16, 2)
USHORT = _s("unsigned short", np.uint16, 2)
INT = _s("int", np.int32, 3)
UINT = _s("unsigned int", np.uint32, 3)
LONG = _s("long", np.int64, 4)
ULONG = _s("unsigned long", np.uint64, 4)
LLONG = _s("long long", np.int64, 5)
ULLONG = _s("unsigned long long", np.uint64, 5)
HALF = _s("__half", np.float16, 99)
# __nv_bfloat16 (cuda_bf16.h): held as its uint16 bit pattern (numpy has no bfloat16); a
# class type like __half (never usual_arith's: the lowering types its operators)
BF16 = _s("__nv_bfloat16", np.uint16, 98)
FLOAT = _s("float", np.float32, 100)
DOUBLE = _s("double", np.float64, 101)
VOID = Void()

# IdentifierType name lists (sorted) -> type.  "signed"/"int" noise is normalised first.
_NAMES: dict[tuple[str, ...], Scalar] = {
    ("bool",): BOOL, ("_Bool",): BOOL,
    ("char",): CHAR, ("char", "signed"): SCHAR, ("char", "unsigned"): UCHAR,
    ("short",): SHORT, ("short", "unsigned"): USHORT,
    ("int",): INT, ("signed",): INT, ("unsigned",): UINT,
    ("long",): LONG, ("long", "unsigned"): ULONG,
    ("long", "long"): LLONG, ("long", "long", "unsigned"): ULLONG,
    ("float",): FLOAT, ("double",): DOUBLE, ("double", "long"): DOUBLE,
}

# typedef names every CUDA file may use without a header.
TYPEDEFS: dict[str, CType] = {
    "size_t": ULONG, "ptrdiff_t": LONG, "uint8_t": UCHAR, "int8_t": SCHAR,
    "uint16_t": USHORT, "int16_t": SHORT, "uint32_t": UINT, "int32_t": INT,
    "uint64_t": ULLONG, "int64_t": LLONG, "uint": UINT, "ushort": USHORT, "uchar": UCHAR,
    "ulong": ULONG, "half": HALF, "__half": HALF,
    "uintptr_t": ULONG, "intptr_t": LONG, "ssize_t": LONG,      # 64-bit, as on Linux x86-64
    "__nv_bfloat16": BF16, "nv_bfloat16": BF16,
}
for _n, _e in (("char", CHAR), ("uchar", UCHAR), ("short", SHORT), ("ushort", USHORT),
               ("int", INT), ("uint", UINT), ("long", LONG), ("ulong", ULONG),
               ("longlong", LLONG), ("ulonglong", ULLONG), ("float", FLOAT), ("double", DOUBLE)):
    for _k in (1, 2, 3, 4):
        TYPEDEFS[f"{_n}{_k}"] = Vector(f"{_n}{_k}", _e, _k)
TYPEDEFS["dim3"] = Vector("dim3", UINT, 3)
HALF2 = TYPEDEFS["__half2"] = TYPEDEFS["half2"] = Vector("__half2", HALF, 2)     # cuda_fp16.h
VECTOR_NAMES = {k for k, v in TYPEDEFS.items() if isinstance(v, Vector)}

# C++ functional casts (``__half(0.5f)``, ``float(h)``): the front end writes each as a call
# of a placeholder of the type name's length (``simt.frontend``, length-preserving), which
# the lowering reads as the conversion.  Placeholder -> (type name, type).
FUNCTIONAL_CASTS: dict[str, tuple[str, Scalar]] = {
    "__Hc__": ("__half", HALF), "_Hc_": ("half", HALF), "_Fc__": ("float", FLOAT),
    "__Dc__": ("double", DOUBLE), "_Ic": ("int", INT),
    "__BFc________": ("__nv_bfloat16", BF16), "_BFc_______": ("nv_bfloat16", BF16),
}


def scalar_from_names(names: list[str]) -> Scalar | None:
    ns = [n for n in names if n not in ("signed",)] if names != ["signed"] else names
    if "signed" in names and "char" in names:
        return SCHAR
    ns = sorted(n for n in ns if not (n == "int" and len(ns) > 1))
    return _NAMES.get(tuple(ns))


def sizeof(t: CType) -> int:
    if isinstance(t, Scalar):
        return t.size
    if isinstance(t, (Pointer, Array, Vector, Struct)):
        return t.size
    raise TypeError(f"sizeof({t})")


def array_dims(t: CType) -> tuple[tuple[int, ...], CType]:
    """An array type's dimensions, outermost first, and its innermost element type
    (``((), t)`` for anything that is not an array)."""
    dims = []
    while isinstance(t, Array):
        dims.append(t.length)
        t = t.elem
    return tuple(dims), t


def alignof(t: CType) -> int:
    if isinstance(t, Array):
        return alignof(t.elem)
    if isinstance(t, (Vector, Struct)):
        return t.align
    return sizeof(t)


def promote(t: Scalar) -> Scalar:
    """Integer promotion: anything narrower than int becomes int."""
    if not t.is_float and t.rank < INT.rank:
        return INT
    return t


_UNSIGNED_OF = {INT: UINT, LONG: ULONG, LLONG: ULLONG}


def usual_arith(a: Scalar, b: Scalar) -> Scalar:
    """C's usual arithmetic conversions (C11 6.3.1.8)."""
    if a.is_float or b.is_float:
        return a if a.rank >= b.rank else b
    a, b = promote(a), promote(b)
    if a == b:
        return a
    if a.is_signed == b.is_signed:
        return a if a.rank >= b.rank else b
    u, s = (a, b) if not a.is_signed else (b, a)
    if u.rank >= s.rank:
        return u
    if s.size > u.size:
        return s
    return _UNSIGNED_OF.get(s, s)


def record_dtype(t) -> np.dtype:
    """The numpy structured dtype of a struct or vector value, C's layout and size."""
    if isinstance(t, Vector):
        return np.dtype({"names": list(t.fields), "formats": [t.elem.dtype] * t.n,
                         "offsets": [k * t.elem.size for k in range(t.n)], "itemsize": t.size})
    return t.dtype


def storage_dtype(t: CType) -> np.dtype:
    """numpy dtype a value of type t lives in, per lane."""
    if isinstance(t, Scalar):
        return t.dtype
    if isinstance(t, (Pointer, Array)):
        return np.dtype(np.int64)
    raise TypeError(str(t))


SCALAR_BY_DTYPE = {np.dtype(np.bool_): BOOL, np.dtype(np.int8): CHAR, np.dtype(np.uint8): UCHAR,
                   np.dtype(np.int16): SHORT, np.dtype(np.uint16): USHORT,
                   np.dtype(np.int32): INT, np.dtype(np.uint32): UINT,
                   np.dtype(np.int64): LLONG, np.dtype(np.uint64): ULLONG,
                   np.dtype(np.float16): HALF, np.dtype(np.float32): FLOAT,
                   np.dtype(np.float64): DOUBLE}
