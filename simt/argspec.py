"""The ``--arg SPEC`` grammar: kernel arguments written on the command line.

A SPEC is a scalar or an array::

    int32=65536            float32=0.5          uint32=0xff        float64=-1e-3
    float32[1024x1024]=uniform                  float32[256]=uniform(-1,1)
    int32[65536]=randint(0,256)                 uint8[4096]=randint(256)
    int32[1]=zeros   int32[8]=ones   int32[8]=full(3)   int32[4096]=arange
    int32[4096]=arange(10)   int32[4096]=arange(10,2)   float32[64]=normal
    float32[64]=normal(5,2)  float32[3]=[1,2.5,3]
    float32[16x16]=@a.npy    int32=@b.npy    @c.npy

A struct (or vector) parameter passed by value takes its members in braces, as C
initializes one (``record``): ``{0.5,1024}`` gives every member in order,
``{alpha=0.5,n=1024}`` gives members by name (the others zero), nested braces give
nested members (``{{1,2},{0,0,0,1},3}``, ``{v={0,0,0,1}}``), and the struct's name may
come first (``Params={0.5,1024}``, ``float4={1,2,3,4}``).

``TYPE`` is a numpy name (``int8`` .. ``int64``, ``uint8`` .. ``uint64``, ``float16``,
``float32``, ``float64``) or a C name (``int``, ``unsigned``, ``float``, ``double``,
``char``, ``uchar``, ``short``, ``long``, ``size_t``, ``half`` / ``__half``: numpy
``float16``, whose values round to nearest even as ``__float2half`` rounds them;
``bfloat16`` / ``__nv_bfloat16`` / ``nv_bfloat16``: numpy has no bfloat16, so the value is
``uint16`` bit patterns, each the float32 value rounded to nearest even as
``__float2bfloat16`` rounds it; the TYPE must be written, it is never taken from the kernel).  Dimensions are separated by ``x`` (or
``,``).  ``randint(lo, hi)`` draws from ``[lo, hi)`` like numpy; ``uniform`` defaults to
``[0, 1)``, ``normal`` to mean 0 and standard deviation 1.  ``@path`` loads a ``.npy``
file; with a ``TYPE`` the values are converted (only when they survive the conversion
exactly) and with ``[DIMS]`` the shape must match.

The random initialisers draw from the ``numpy.random.Generator`` the caller passes, so
the same ``--seed`` gives the same arrays.  Every mistake raises
``simt.errors.UsageError`` naming the spec and what was expected.  This module needs
numpy only.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .ctypes_ import TYPEDEFS, Vector
from .errors import UsageError

__all__ = ["ArgSpec", "parse", "make_arg", "record", "is_record", "DTYPES", "MAX_BYTES", "GRAMMAR"]

GRAMMAR = ("TYPE=VALUE (e.g. int32=65536, float32=0.5) or TYPE[DIMS]=INIT "
           "(e.g. float32[1024x1024]=uniform, int32[65536]=randint(0,256), int32[1]=zeros, "
           "int32[4096]=arange) or @file.npy, or a struct's members in braces "
           "(e.g. {0.5,1024}, Params={alpha=0.5,n=1024})")

INITS = ("zeros", "ones", "full(v)", "arange", "uniform", "normal", "randint(lo,hi)",
         "[v,v,...]", "@file.npy")

DTYPES: dict[str, np.dtype] = {
    **{n: np.dtype(n) for n in ("int8", "int16", "int32", "int64", "uint8", "uint16",
                                "uint32", "uint64", "float16", "float32", "float64")},
    # C spellings, as in the kernel's parameter list
    "char": np.dtype(np.int8), "schar": np.dtype(np.int8), "uchar": np.dtype(np.uint8),
    "short": np.dtype(np.int16), "ushort": np.dtype(np.uint16),
    "int": np.dtype(np.int32), "uint": np.dtype(np.uint32), "unsigned": np.dtype(np.uint32),
    "long": np.dtype(np.int64), "ulong": np.dtype(np.uint64),
    "longlong": np.dtype(np.int64), "ulonglong": np.dtype(np.uint64),
    "size_t": np.dtype(np.uint64),
    "float": np.dtype(np.float32), "double": np.dtype(np.float64),
    "half": np.dtype(np.float16), "__half": np.dtype(np.float16),
}

#: the names of __nv_bfloat16 (arrays of uint16 bit patterns)
BF16_NAMES = ("bfloat16", "__nv_bfloat16", "nv_bfloat16")

#: Refuse arrays larger than this many bytes (the emulator could not touch them anyway).
MAX_BYTES = 1 << 32

_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
_SPEC_RE = re.compile(rf"^\s*(?P<type>{_NAME})?\s*(?:\[(?P<dims>[^\]]*)\])?\s*=\s*(?P<init>.*?)\s*$", re.S)
_CALL_RE = re.compile(rf"^(?P<fn>{_NAME})\s*(?:\((?P<args>.*)\))?$", re.S)
_RECORD_RE = re.compile(rf"^\s*(?:(?:struct\s+)?(?P<type>{_NAME})\s*=\s*)?(?P<body>\{{.*\}})\s*$", re.S)
_MEMBER_RE = re.compile(rf"\s*({_NAME})\s*=(?!=)\s*")


@dataclass(frozen=True)
class ArgSpec:
    """One parsed spec.  ``shape`` is None for a scalar (and for a bare ``@file``)."""

    text: str
    dtype: np.dtype | None          # None only for a bare ``@file.npy`` (dtype from the file)
    shape: tuple[int, ...] | None
    init: str                       # "value", "zeros", "ones", "full", "arange", "uniform",
                                    # "normal", "randint", "list", "file"
    params: tuple = ()              # numbers for the initialiser, or (path,) for "file"
    bf16: bool = False              # bfloat16: built as float32, rounded to uint16 bits

    @property
    def is_array(self) -> bool:
        return self.shape is not None or self.init in ("file", "list")

    @property
    def size(self) -> int:
        return math.prod(self.shape) if self.shape is not None else 1

    def describe(self) -> str:
        """``float32[1024x1024]`` / ``int32`` / ``@a.npy`` — for messages."""
        t = "bfloat16" if self.bf16 else self.dtype.name if self.dtype is not None else ""
        if self.shape is not None:
            return f"{t}[{'x'.join(map(str, self.shape))}]"
        if self.init == "file" and self.dtype is None:
            return f"@{self.params[0]}"
        return t

    def build(self, rng: np.random.Generator | None = None, base_dir: str | Path | None = None):
        """The value: a numpy scalar or a C-contiguous numpy array."""
        if self.bf16:
            from dataclasses import replace
            from .ops import to_bf16
            v = _build(replace(self, dtype=np.dtype(np.float32), bf16=False), rng, base_dir)
            r = to_bf16(np.asarray(v, np.float32))
            return np.ascontiguousarray(r) if np.ndim(v) else np.uint16(r)
        return _build(self, rng, base_dir)


def _bad(spec: str, expected: str) -> UsageError:
    return UsageError(f"bad argument spec {spec!r}: expected {expected}")


# CUDA's vector types (simt.ctypes_'s) as array element types: float4[1024]=uniform is a
# float32 array of shape (1024, 4), what a float4 * parameter points to (a by-value
# float4 takes braces)
VECTOR_ARRAYS = {name: (t.elem.dtype, t.n) for name, t in TYPEDEFS.items() if isinstance(t, Vector)}


def _dtype(spec: str, name: str) -> np.dtype:
    if name in VECTOR_ARRAYS:
        return VECTOR_ARRAYS[name][0]
    try:
        return DTYPES[name]
    except KeyError:
        raise _bad(spec, f"a type among {', '.join(list(DTYPES)[:11])} "
                         f"(or a C name such as int, float, unsigned), not {name!r}") from None


def _dims(spec: str, text: str) -> tuple[int, ...]:
    parts = [p.strip() for p in re.split(r"[x,*]", text)]
    if not parts or not all(re.fullmatch(r"\d+", p) for p in parts):
        raise _bad(spec, f"dimensions like [1024] or [1024x1024] with positive integers, not [{text}]")
    shape = tuple(int(p) for p in parts)
    if len(shape) > 8:
        raise _bad(spec, "at most 8 dimensions")
    if min(shape) < 1:
        raise _bad(spec, f"every dimension at least 1, not [{text}]")
    return shape


def _number(spec: str, text: str, dtype: np.dtype, what: str = "a value"):
    """Parse ``text`` as a value of ``dtype``; check it fits."""
    t = text.strip().replace("_", "")
    if np.issubdtype(dtype, np.integer):
        try:
            v = int(t, 0)
        except ValueError:
            try:
                f = float(t)
            except ValueError:
                raise _bad(spec, f"{what} that is an integer for {dtype.name}, not {text.strip()!r}") from None
            if not math.isfinite(f) or f != int(f):
                raise _bad(spec, f"{what} that is an integer for {dtype.name}, not {text.strip()!r}")
            v = int(f)
        info = np.iinfo(dtype)
        if not info.min <= v <= info.max:
            raise _bad(spec, f"{what} in the range of {dtype.name} [{info.min}, {info.max}], not {v}")
        return v
    try:
        f = float(t)
    except ValueError:
        raise _bad(spec, f"{what} that is a number for {dtype.name}, not {text.strip()!r}") from None
    with np.errstate(over="ignore"):
        fits = math.isfinite(float(np.array(f).astype(dtype)))
    if math.isfinite(f) and not fits:
        raise _bad(spec, f"{what} in the range of {dtype.name}, not {text.strip()} (overflows to inf)")
    return f


def _real(spec: str, text: str, what: str) -> float:
    try:
        v = float(text.strip().replace("_", ""))
    except ValueError:
        raise _bad(spec, f"{what} to be a number, not {text.strip()!r}") from None
    if not math.isfinite(v):
        raise _bad(spec, f"{what} to be finite, not {text.strip()!r}")
    return v


def _split_args(args: str | None) -> list[str]:
    if args is None:
        return []
    args = args.strip()
    return [a.strip() for a in args.split(",")] if args else []


def parse(spec: str, default_dtype: np.dtype | str | None = None) -> ArgSpec:
    """Parse ``spec``; raise UsageError if it is malformed.

    ``default_dtype`` fills in a missing TYPE (``65536``, ``[1024]=uniform``): the CLI
    passes the kernel parameter's type.  Without it a TYPE is required.
    """
    if not isinstance(spec, str) or not spec.strip():
        raise _bad(str(spec), GRAMMAR)
    text = spec.strip()
    if default_dtype is not None:
        default_dtype = np.dtype(default_dtype)

    # bare @file.npy: dtype and shape from the file
    if text.startswith("@"):
        path = text[1:].strip()
        if not path:
            raise _bad(spec, "a file name after '@', e.g. @data.npy")
        return ArgSpec(spec, default_dtype, None, "file", (path,))

    if text in DTYPES or text in BF16_NAMES:
        raise _bad(spec, f"'=' and a value after the type, e.g. {text}=1 or {text}[1024]=zeros")
    m = _SPEC_RE.match(text)
    if m is None:
        # a bare value, e.g. "65536", when the caller knows the type
        if default_dtype is not None and "=" not in text and "[" not in text:
            _number(spec, text, default_dtype)
            return ArgSpec(spec, default_dtype, None, "value", (text,))
        raise _bad(spec, GRAMMAR)
    tname, dims, init = m.group("type"), m.group("dims"), m.group("init")
    if tname in BF16_NAMES:             # parsed as float32, built as rounded uint16 bits
        from dataclasses import replace
        got = parse(text.replace(tname, "float32", 1))
        return replace(got, text=spec, dtype=np.dtype(np.uint16), bf16=True)
    if tname is None:
        if default_dtype is None:
            raise _bad(spec, "a type before '=' or '[', e.g. int32=5 or float32[1024]=uniform")
        dtype = default_dtype
    else:
        dtype = _dtype(spec, tname)
    if not init:
        raise _bad(spec, f"a value after '=' (one of {', '.join(INITS)} for arrays)")

    if dims is None:  # scalar (or a typed @file with any shape)
        if init.startswith("@"):
            path = init[1:].strip()
            if not path:
                raise _bad(spec, "a file name after '@', e.g. float32=@data.npy")
            return ArgSpec(spec, dtype, None, "file", (path,))
        if init.startswith("[") or _CALL_RE.match(init) and init.split("(")[0].strip() in _ARRAY_INITS:
            raise _bad(spec, f"dimensions for an array, e.g. {dtype.name}[1024]={init}; "
                             f"a scalar takes a number such as {dtype.name}=1")
        _number(spec, init, dtype)
        return ArgSpec(spec, dtype, None, "value", (init,))

    shape = _dims(spec, dims)
    if tname in VECTOR_ARRAYS:
        # an array of CUDA vectors (float4[1024]): that many rows of the components
        shape = shape + (VECTOR_ARRAYS[tname][1],)
    nbytes = math.prod(shape) * dtype.itemsize
    if nbytes > MAX_BYTES:
        raise _bad(spec, f"an array of at most {MAX_BYTES >> 30} GiB, not {nbytes / 2**30:.1f} GiB")
    if init.startswith("@"):
        path = init[1:].strip()
        if not path:
            raise _bad(spec, "a file name after '@', e.g. float32[16]=@data.npy")
        return ArgSpec(spec, dtype, shape, "file", (path,))
    if init.startswith("["):
        if not init.endswith("]"):
            raise _bad(spec, "a list closed by ']', e.g. int32[3]=[1,2,3]")
        vals = _split_args(init[1:-1])
        if len(vals) != math.prod(shape):
            raise _bad(spec, f"{math.prod(shape)} values in the list for shape "
                             f"[{'x'.join(map(str, shape))}], got {len(vals)}")
        return ArgSpec(spec, dtype, shape, "list",
                       tuple(_number(spec, v, dtype, "every list element") for v in vals))
    cm = _CALL_RE.match(init)
    if cm is None or cm.group("fn") not in _ARRAY_INITS:
        raise _bad(spec, f"an initialiser among {', '.join(INITS)}, not {init!r}")
    fn, args = cm.group("fn"), _split_args(cm.group("args"))
    return ArgSpec(spec, dtype, shape, fn, _ARRAY_INITS[fn](spec, dtype, args))


def is_record(spec: str) -> bool:
    """Whether ``spec`` is a struct value in braces (``record``'s grammar, at the top)."""
    return isinstance(spec, str) and _RECORD_RE.match(spec) is not None


def record(spec: str) -> tuple[str | None, list | dict]:
    """Parse a struct value passed by value: ``{0.5, 1024}`` (every member, in order),
    ``{alpha=0.5, n=1024}`` (by name, the others zero), braces nested for nested members
    (``{}`` is all zero), optionally after the type's name (``Params={...}``).  Returns
    ``(type name or None, value)``: a list (by position) or a dict (by name) of the
    members' texts and nested values, which ``simt.byvalue.pack`` checks against the
    struct and converts."""
    m = _RECORD_RE.match(spec) if isinstance(spec, str) else None
    if m is None:
        raise _bad(str(spec), "a struct value in braces, e.g. {0.5,1024} or Params={alpha=0.5,n=1024}")
    body = m.group("body")

    def ws(i):
        while i < len(body) and body[i].isspace():
            i += 1
        return i

    def group(i):                       # body[i] == "{"
        items, i = [], i + 1
        while True:
            i = ws(i)
            if i < len(body) and body[i] == "}":        # {} or a trailing comma
                i += 1
                break
            name, nm = None, _MEMBER_RE.match(body, i)
            if nm:
                name, i = nm.group(1), nm.end()
            if i < len(body) and body[i] == "{":
                val, i = group(i)
            else:
                j, depth = i, 0       # a pointer member's array spec: float32[4]=uniform(0,1)
                while j < len(body) and (depth or body[j] not in ",{}"):
                    depth += {"(": 1, "[": 1, ")": -1, "]": -1}.get(body[j], 0)
                    j += 1
                val, i = body[i:j].strip(), j
                if not val:
                    raise _bad(spec, "a value for every member between the braces' commas")
            items.append((name, val))
            i = ws(i)
            if i < len(body) and body[i] == ",":
                i += 1
                continue
            if i < len(body) and body[i] == "}":
                i += 1
                break
            raise _bad(spec, "',' or '}' after each member's value" if i < len(body) else "a closing '}'")
        names = [n for n, _ in items]
        if all(n is None for n in names) and items:
            return [v for _, v in items], i
        if any(n is None for n in names):
            raise _bad(spec, "members all by position ({0.5,1024}) or all by name "
                             "({alpha=0.5,n=1024}), not mixed")
        for k, n in enumerate(names):
            if n in names[:k]:
                raise _bad(spec, f"each member once, not {n!r} twice")
        return dict(items), i

    value, end = group(0)
    if body[end:].strip():
        raise _bad(spec, f"nothing after the closing '}}', not {body[end:].strip()!r}")
    return m.group("type"), value


# --- initialisers: argument checking ------------------------------------------------

def _p_none(name):
    def check(spec, dtype, args):
        if args:
            raise _bad(spec, f"{name} without arguments")
        return ()
    return check


def _p_full(spec, dtype, args):
    if len(args) != 1:
        raise _bad(spec, "full(v) with one value, e.g. int32[8]=full(3)")
    return (_number(spec, args[0], dtype, "full(v) with a value"),)


def _p_arange(spec, dtype, args):
    if len(args) > 2:
        raise _bad(spec, "arange, arange(start) or arange(start,step)")
    vals = [_number(spec, a, dtype, "arange start/step") for a in args]
    start = vals[0] if vals else 0
    step = vals[1] if len(vals) > 1 else 1
    if step == 0:
        raise _bad(spec, "a non-zero arange step")
    return (start, step)


def _p_uniform(spec, dtype, args):
    if not np.issubdtype(dtype, np.floating):
        raise _bad(spec, f"a float type for uniform (use randint(lo,hi) for {dtype.name})")
    if len(args) not in (0, 2):
        raise _bad(spec, "uniform or uniform(lo,hi)")
    lo, hi = (_real(spec, args[0], "uniform's lo"), _real(spec, args[1], "uniform's hi")) if args else (0.0, 1.0)
    if not lo < hi:
        raise _bad(spec, f"uniform(lo,hi) with lo < hi, got lo={args[0]} hi={args[1]}")
    return (lo, hi)


def _p_normal(spec, dtype, args):
    if not np.issubdtype(dtype, np.floating):
        raise _bad(spec, f"a float type for normal (use randint(lo,hi) for {dtype.name})")
    if len(args) not in (0, 2):
        raise _bad(spec, "normal or normal(mean,std)")
    mu, sd = (_real(spec, args[0], "normal's mean"), _real(spec, args[1], "normal's std")) if args else (0.0, 1.0)
    if sd < 0:
        raise _bad(spec, f"normal(mean,std) with std >= 0, got {args[1]}")
    return (mu, sd)


def _p_randint(spec, dtype, args):
    if len(args) not in (1, 2):
        raise _bad(spec, "randint(hi) or randint(lo,hi), drawing from [lo, hi)")
    ints = []
    for a in args:
        try:
            ints.append(int(a.replace("_", ""), 0))
        except ValueError:
            raise _bad(spec, f"integer bounds in randint, not {a!r}") from None
    lo, hi = (0, ints[0]) if len(ints) == 1 else tuple(ints)
    if not lo < hi:
        raise _bad(spec, f"randint(lo,hi) with lo < hi (hi is excluded), got lo={lo} hi={hi}")
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        if lo < info.min or hi - 1 > info.max:
            raise _bad(spec, f"randint bounds within {dtype.name} [{info.min}, {info.max}] "
                             f"(hi is excluded: randint(0,{info.max + 1}) covers it), got [{lo}, {hi})")
    return (lo, hi)


_ARRAY_INITS = {
    "zeros": _p_none("zeros"), "ones": _p_none("ones"), "full": _p_full,
    "arange": _p_arange, "uniform": _p_uniform, "normal": _p_normal, "randint": _p_randint,
}


# --- building ---------------------------------------------------------------------

def _load(spec: ArgSpec, base_dir) -> np.ndarray:
    raw = Path(spec.params[0]).expanduser()
    path = raw if raw.is_absolute() or base_dir is None else Path(base_dir) / raw
    try:
        arr = np.load(path, allow_pickle=False)
    except FileNotFoundError:
        raise UsageError(f"bad argument spec {spec.text!r}: no such file: {path}") from None
    except IsADirectoryError:
        raise UsageError(f"bad argument spec {spec.text!r}: {path} is a directory, expected a .npy file") from None
    except PermissionError:
        raise UsageError(f"bad argument spec {spec.text!r}: cannot read {path}: permission denied") from None
    except (ValueError, OSError, EOFError) as e:
        raise UsageError(f"bad argument spec {spec.text!r}: {path} is not a readable .npy file ({e})") from None
    if not isinstance(arr, np.ndarray):  # .npz
        raise UsageError(f"bad argument spec {spec.text!r}: {path} holds several arrays; expected one .npy array")
    if arr.dtype.kind not in "biuf":
        raise UsageError(f"bad argument spec {spec.text!r}: {path} holds {arr.dtype} values; "
                         f"expected integers or floats")
    if arr.dtype.kind == "b":
        arr = arr.astype(np.uint8)
    if spec.shape is not None and arr.shape != spec.shape and arr.size == spec.size:
        arr = arr.reshape(spec.shape)
    if spec.shape is not None and arr.shape != spec.shape:
        want = "x".join(map(str, spec.shape))
        got = "x".join(map(str, arr.shape)) or "scalar"
        raise UsageError(f"bad argument spec {spec.text!r}: {path} has shape [{got}], expected [{want}]")
    if spec.dtype is not None and arr.dtype != spec.dtype:
        conv = arr.astype(spec.dtype)
        with np.errstate(invalid="ignore"):
            same = np.array_equal(conv.astype(arr.dtype), arr, equal_nan=arr.dtype.kind == "f")
        if not same:
            raise UsageError(f"bad argument spec {spec.text!r}: {path} holds {arr.dtype} values that "
                             f"do not convert exactly to {spec.dtype.name}")
        arr = conv
    if arr.ndim == 0:
        arr = arr.reshape(1)
    return np.ascontiguousarray(arr)


def _build(spec: ArgSpec, rng, base_dir):
    dt = spec.dtype
    if spec.init == "value":
        return dt.type(_number(spec.text, spec.params[0], dt))
    if spec.init == "file":
        return _load(spec, base_dir)
    shape, p = spec.shape, spec.params
    if spec.init == "zeros":
        return np.zeros(shape, dt)
    if spec.init == "ones":
        return np.ones(shape, dt)
    if spec.init == "full":
        return np.full(shape, p[0], dt)
    if spec.init == "list":
        return np.array(p, dtype=dt).reshape(shape)
    if spec.init == "arange":
        n = math.prod(shape)
        if np.issubdtype(dt, np.integer):  # wraps like CUDA integer arithmetic would
            a = (np.arange(n, dtype=np.int64) * int(p[1]) + int(p[0])).astype(dt)
        else:
            a = (np.arange(n, dtype=np.float64) * p[1] + p[0]).astype(dt)
        return np.ascontiguousarray(a.reshape(shape))
    if rng is None:
        rng = np.random.default_rng(0)
    if spec.init == "uniform":
        return np.ascontiguousarray(rng.uniform(p[0], p[1], size=shape).astype(dt))
    if spec.init == "normal":
        return np.ascontiguousarray(rng.normal(p[0], p[1], size=shape).astype(dt))
    if spec.init == "randint":
        if np.issubdtype(dt, np.integer):
            return np.ascontiguousarray(rng.integers(p[0], p[1], size=shape, dtype=dt))
        return np.ascontiguousarray(rng.integers(p[0], p[1], size=shape, dtype=np.int64).astype(dt))
    raise AssertionError(spec.init)  # pragma: no cover


def make_arg(spec: str, rng: np.random.Generator | None = None, default_dtype=None,
             base_dir: str | Path | None = None):
    """Parse and build in one go: a numpy scalar or a C-contiguous numpy array."""
    return parse(spec, default_dtype).build(rng, base_dir)
