"""Structs and built-in vectors passed to a kernel by value (``k(Params p)``, ``k(float4 v)``).

The host value is a numpy structured scalar laid out as C lays the type out:
``record_dtype`` gives its dtype (member offsets, padding and ``sizeof`` as nvcc's, the
layout ``simt.ctypes_`` computes for memory; a vector's members are x, y, z, w), so the
same bytes go to the GPU, where CuPy passes a one-element numpy array by value.  ``pack``
builds that value from what a caller has: a numpy structured scalar (or one-element
array) with the same members, a tuple or list (every member, in order), a dict (members
by name, the others zero), nested for nested members and array members (a sequence of
the elements, or a numpy array shaped like the member), or the strings of an ``--arg``
spec (``simt.argspec.record``).  A pointer member takes an address, or a device array
through the caller's ``pointer`` function.  The emulator then reads each leaf member
from those bytes at its offset into the launch uniform that stands for it
(``leaf_values``).

Differences from hardware: none in the values a kernel sees.  On the GPU a struct
parameter lives in the constant parameter bank; the emulator holds each leaf member in
a uniform instead, so a kernel that takes the parameter's address (which simt's subset
rejects for locals) has no equivalent.
"""
from __future__ import annotations

import math

import numpy as np

from . import ctypes_ as T
from .argspec import _number
from .ctypes_ import Array, Pointer, Vector, record_dtype
from .errors import UsageError
from .lower import _agg, _leaves, _members

__all__ = ["record_dtype", "pack", "map_pointers", "member_arrays_to", "leaf_values", "example"]


def example(t) -> str:
    """A spec for a value of ``t`` (zeros), for messages: ``{alpha=0,n=0}``, ``{0,0,0,0}``."""
    if isinstance(t, Vector):
        return "{" + ",".join("0" * t.n) + "}"
    if isinstance(t, Array):
        return "{" + ",".join([_example(t.elem)] * t.length) + "}"
    if isinstance(t, T.Union):
        n, mt, _ = t.members[0]
        return "{" + f"{n}={_example(mt)}" + "}"
    return "{" + ",".join(f"{n}={_example(mt)}" for n, mt, _ in _members(t)) + "}"


def _example(t) -> str:
    return example(t) if _agg(t) or isinstance(t, Array) else "0"


def pack(t, value, where: str, spec: str | None = None, pointer=None) -> np.void:
    """``value`` as a structured scalar of ``record_dtype(t)``.  UsageError naming ``where``
    and the member when it does not fit: a wrong number of members, an unknown member, a
    value that is not a number or does not fit its member's type exactly (integers) or
    overflows it (floats).  ``spec``: the ``--arg`` text the strings come from (messages).
    ``pointer(x, where)``: the address of a device array given for a pointer member."""
    dt = record_dtype(t)
    buf = np.zeros(dt.itemsize, np.uint8)
    for off, x in _flatten(t, value, where, "", 0, spec, pointer):
        buf[off:off + x.itemsize] = np.frombuffer(x.tobytes(), np.uint8)
    return buf.view(dt)[0]


def map_pointers(t, v, fn, path: str = ""):
    """``v`` (a value of ``t`` as ``pack`` takes it: nested tuples, lists and dicts) with
    each pointer member's value ``x`` replaced by ``fn(x, member_type, path)`` (``path``:
    ``x``, ``inner.x``, ``ptrs[2]``); what ``pack`` would reject is left for it to name."""
    if v is None:
        return None
    if isinstance(t, Pointer):
        return fn(v, t, path)
    if isinstance(t, Array):
        if isinstance(v, (list, tuple)):
            return [map_pointers(t.elem, e, fn, f"{path}[{k}]") for k, e in enumerate(v)]
        return v
    if not (isinstance(t, T.Union) or _agg(t)) or isinstance(t, Vector):
        return v
    mem = [(n, mt) for n, mt, *_ in (t.members if isinstance(t, T.Union) else _members(t))]
    pre = f"{path}." if path else ""
    if isinstance(v, dict):
        types = dict(mem)
        return {n: map_pointers(types[n], x, fn, pre + n) if n in types else x for n, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [map_pointers(mt, x, fn, pre + n) for (n, mt), x in zip(mem, v)] + list(v[len(mem):])
    return v


def member_arrays_to(t, v, to_device) -> tuple[object, list]:
    """``v`` with each numpy array a pointer member holds replaced by ``to_device(array)``
    (the backend then packs the struct with their addresses), and the device arrays, in
    ``map_pointers``' order."""
    got = []

    def up(x, mt, path):
        if isinstance(x, np.ndarray):
            got.append(to_device(x))
            return got[-1]
        return x
    return map_pointers(t, v, up), got


def leaf_values(t, rec) -> list:
    """The leaf members of a packed value (``pack``), read from its bytes at their
    offsets, in ``_leaves`` order (the kernel parameter's uniforms)."""
    buf = np.asarray(rec).tobytes()
    return [np.frombuffer(buf, T.storage_dtype(lt), 1, off)[0] for _, lt, off in _leaves(t)]


def _flatten(t, v, where, path, off, spec, pointer):
    """(byte offset, numpy scalar) of every leaf member of ``v`` as a value of ``t``."""
    if isinstance(t, T.Union):
        yield from _union(t, v, where, path, off, spec, pointer)
        return
    mem = _members(t)
    for (n, mt, o), x in zip(mem, _items(t, v, [m[0] for m in mem], where, path)):
        yield from _member(mt, x, where, path + n, off + o, spec, pointer)


def _union(t, v, where, path, off, spec, pointer):
    """``_flatten`` of a union: its bytes (a numpy structured value), or one member's value
    (a dict naming it, or a one-element tuple for the first member); zero when None."""
    label = f"{where}, member {path[:-1]} ({t})" if path else where
    if v is None:
        return
    if isinstance(v, np.ndarray) and v.dtype.names and v.size == 1:
        v = v.reshape(-1)[0]
    if isinstance(v, np.void):
        if v.dtype.itemsize != t.size:
            raise UsageError(f"{label}: a {t} has {t.size} bytes; the numpy value has {v.dtype.itemsize}")
        yield off, np.frombuffer(v.tobytes(), np.uint8).copy().view(np.dtype((np.void, t.size)))[0]
        return
    names = [m[0] for m in t.members]
    if isinstance(v, dict):
        if len(v) != 1 or next(iter(v)) not in names:
            raise UsageError(f"{label}: a {t} takes one of its members by name, e.g. {example(t)} "
                             f"(its members: {', '.join(names)})")
        (n, x), = v.items()
    elif isinstance(v, (tuple, list)) and len(v) == 1:
        n, x = names[0], v[0]
    else:
        raise UsageError(f"{label}: a {t} takes one member's value in braces: its first member "
                         f"({{0}}) or one by name ({example(t)})")
    mt = dict((m[0], m[1]) for m in t.members)[n]
    yield from _member(mt, x, where, path + n, off, spec, pointer)


def _member(mt, x, where, path, off, spec, pointer):
    """``_flatten`` of one member (or array element) ``path`` of type ``mt`` at ``off``."""
    if isinstance(mt, Array):
        es = T.sizeof(mt.elem)
        for k, e in enumerate(_elements(mt, x, where, path)):
            yield from _member(mt.elem, e, where, f"{path}[{k}]", off + k * es, spec, pointer)
    elif _agg(mt):
        yield from _flatten(mt, x, where, path + ".", off, spec, pointer)
    else:
        yield off, _leaf(mt, x, where, path, spec, pointer)


def _elements(t, v, where, path) -> list:
    """The values of an array member's elements in ``v`` (None: zero)."""
    if v is None:
        return [None] * t.length
    label = f"{where}, member {path} ({t})"
    if not isinstance(v, (tuple, list, np.ndarray)) or isinstance(v, np.ndarray) and v.ndim == 0:
        raise UsageError(f"{label} is an array: give its {t.length} elements in braces, e.g. "
                         f"{example(t)}, not {v!r}")
    if len(v) != t.length:
        raise UsageError(f"{label} has {t.length} element{'s' if t.length != 1 else ''}, got "
                         f"{len(v)} value{'s' if len(v) != 1 else ''}")
    return list(v)


def _items(t, v, names, where, path) -> list:
    """The values of ``t``'s members in ``v`` (None: zero)."""
    label = f"{where}, member {path[:-1]} ({t})" if path else where
    if v is None:
        return [None] * len(names)
    if isinstance(v, np.ndarray) and v.dtype.names:
        if v.size != 1:
            raise UsageError(f"{label}: a {t} is one value, got an array of {v.size}")
        v = v.reshape(-1)[0]
    if isinstance(v, np.void) and v.dtype.names:
        if tuple(v.dtype.names) != tuple(names):
            raise UsageError(f"{label}: {t} has the members {', '.join(names)}; the numpy value "
                             f"has {', '.join(v.dtype.names)}")
        return [v[n] for n in names]
    if isinstance(v, dict):
        for k in v:
            if k not in names:
                raise UsageError(f"{label}: {t} has no member {k!r} (its members: {', '.join(names)})")
        return [v.get(n) for n in names]
    if isinstance(v, (tuple, list)) or (isinstance(v, np.ndarray) and v.ndim == 1):
        if len(v) != len(names):
            raise UsageError(f"{label}: {t} has {len(names)} member{'s' if len(names) != 1 else ''} "
                             f"({', '.join(names)}), got {len(v)} value{'s' if len(v) != 1 else ''}")
        return list(v)
    if isinstance(v, str):
        raise UsageError(f"{label}: a {t} takes its members in braces, e.g. {example(t)}, not {v!r}")
    raise UsageError(f"{label}: a {t} is passed by value: give a tuple of its members, a dict "
                     f"or a numpy structured scalar, not {type(v).__name__}")


def _leaf(mt, x, where, path, spec, pointer):
    """One leaf member's value as its storage dtype's numpy scalar."""
    what = f"member {path} ({mt})"
    if isinstance(mt, Pointer):
        if x is None or (isinstance(x, str) and x.strip() in ("0", "NULL", "nullptr")):
            return np.int64(0)
        if isinstance(x, str):
            raise UsageError(f"{where}: {what} is a pointer: give it 0 (NULL), an array spec on "
                             "the command line (float32[1024]=zeros), or a device array from Python")
        if isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_)):
            return np.int64(int(x))
        if pointer is not None:
            return np.int64(pointer(x, f"{where}, {what}"))
        raise UsageError(f"{where}: {what} needs a device array or an address, got {type(x).__name__}")
    dt = mt.dtype
    if x is None:
        return dt.type(0)
    if isinstance(x, str):
        try:
            return dt.type(_number(spec or x, x, dt, f"member {path}"))
        except UsageError as e:
            raise UsageError(f"{where}: {e.message}") from None
    if not isinstance(x, (int, float, np.integer, np.floating, np.bool_)):
        raise UsageError(f"{where}: {what} needs a number, got {type(x).__name__}")
    if dt.kind == "b":
        return np.bool_(x)
    if dt.kind in "iu":
        if isinstance(x, (float, np.floating)) and not (math.isfinite(x) and x == int(x)):
            raise UsageError(f"{where}: {what} needs an integer, got {x!r}")
        info = np.iinfo(dt)
        if not info.min <= int(x) <= info.max:
            raise UsageError(f"{where}: {what} must be in [{info.min}, {info.max}], got {int(x)}")
        return dt.type(int(x))
    with np.errstate(over="ignore"):
        y = dt.type(x)
    if math.isfinite(float(x)) and not math.isfinite(float(y)):
        raise UsageError(f"{where}: {what}: {x!r} overflows {dt.name}")
    return y
