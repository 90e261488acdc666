"""Cooperative groups (``#include <cooperative_groups.h>``) as C the emulator already runs.

``namespace cg = cooperative_groups;`` and ``using namespace cooperative_groups;`` are
read, the ``cg::`` prefixes blanked, and the groups become small structs held in
registers (``_cg_block``, ``_cg_tile``: size, lane mask and first lane of a tile;
``_cg_coalesced``: its lane mask; ``_cg_grid``) with device functions written in CUDA C
(``PRELUDE``, parsed as the file ``<cooperative_groups>``).  A method call ``g.m(args)``
on a group is lowered as ``_cg_<kind>_<m>(g, args)`` (``simt.lower``), so a tile's
``shfl_down`` is the ``__shfl_down_sync`` with its mask and width that the CUDA headers
use.  A function that takes a ``thread_group`` becomes a template on that type, so a
block and a tile each get their own instance (no dispatch at run time).

What is there: ``this_thread_block()`` (``sync``, ``thread_rank``, ``size``,
``num_threads``, ``thread_index``, ``group_index``, ``group_dim``, ``dim_threads``),
``tiled_partition<N>(g)`` and ``tiled_partition(g, n)`` for N a power of two up to 32
(``sync``, ``thread_rank``, ``size``, ``num_threads``, ``meta_group_rank``,
``meta_group_size``, ``shfl``, ``shfl_up``, ``shfl_down``, ``shfl_xor``, ``any``,
``all``, ``ballot``, ``match_any``), ``coalesced_threads()`` (``sync``,
``thread_rank``, ``size``, ``num_threads``, ``shfl``, ``shfl_up``, ``shfl_down``,
``any``, ``all``), ``this_grid()`` (``thread_rank``, ``size``, ``num_threads``), the
free functions ``sync(g)``, ``reduce(tile, v, op)``, ``inclusive_scan`` and
``exclusive_scan`` with ``plus``, ``less``, ``greater``, ``bit_and``, ``bit_or``,
``bit_xor``.

Limitations: ``grid.sync()`` needs a cooperative launch (all blocks resident at once),
which simt does not emulate; it is an error, as are tiles of more than 32 threads,
``coalesced_group::ballot``, ``labeled_partition``, ``memcpy_async`` and the other parts
of the library not listed.  ``reduce`` is a butterfly of ``shfl_xor`` for every type,
where the CUDA headers use one ``redux.sync`` for 32-bit integers on sm_80 and later:
the instruction count of such a reduction is higher than the GPU's.  A ``thread_group``
made by ``tiled_partition(g, n)`` is read as a tile, so simt accepts the collectives on
it that nvcc rejects (they need ``thread_block_tile<N>``).  Columns on a line
where a call was renamed (``reduce(...)``, ``auto``) are those of the rewritten text.
"""
from __future__ import annotations

import re

from .errors import CompileError
from .templates import angle_call, close_paren, match_angle, split_spans

PRELUDE = r"""
struct _cg_block { int _cg_unused; };
struct _cg_tile {
    unsigned int _cg_size; unsigned int _cg_mask; unsigned int _cg_base;
    unsigned int _cg_meta_rank; unsigned int _cg_meta_size;
};
struct _cg_coalesced { unsigned int _cg_mask; };
struct _cg_grid { int _cg_unused; };
typedef struct _cg_block thread_block;
typedef struct _cg_tile thread_block_tile;
typedef struct _cg_coalesced coalesced_group;
typedef struct _cg_grid grid_group;

__device__ unsigned int _cg_linear_tid() {
    return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}
__device__ unsigned int _cg_block_threads() { return blockDim.x * blockDim.y * blockDim.z; }

__device__ dim3 _cg_dim3(unsigned int x, unsigned int y, unsigned int z) {
    dim3 d; d.x = x; d.y = y; d.z = z; return d;
}
__device__ thread_block _cg_this_thread_block() { thread_block g; g._cg_unused = 0; return g; }
__device__ void _cg_block_sync(thread_block g) { __syncthreads(); }
__device__ unsigned int _cg_block_thread_rank(thread_block g) { return _cg_linear_tid(); }
__device__ unsigned int _cg_block_size(thread_block g) { return _cg_block_threads(); }
__device__ unsigned int _cg_block_num_threads(thread_block g) { return _cg_block_threads(); }
__device__ dim3 _cg_block_thread_index(thread_block g) { return _cg_dim3(threadIdx.x, threadIdx.y, threadIdx.z); }
__device__ dim3 _cg_block_group_index(thread_block g) { return _cg_dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
__device__ dim3 _cg_block_group_dim(thread_block g) { return _cg_dim3(blockDim.x, blockDim.y, blockDim.z); }
__device__ dim3 _cg_block_dim_threads(thread_block g) { return _cg_dim3(blockDim.x, blockDim.y, blockDim.z); }

template <typename P> __device__ thread_block_tile _cg_tiled_partition(P parent, unsigned int n) {
    thread_block_tile t;
    t._cg_size = n;
    t._cg_base = __laneid() & ~(n - 1u);
    t._cg_mask = (n >= 32u ? 0xffffffffu : (1u << n) - 1u) << t._cg_base;
    unsigned int sh = __ffs(n) - 1;
    t._cg_meta_rank = parent.thread_rank() >> sh;
    t._cg_meta_size = (parent.size() + n - 1u) >> sh;
    return t;
}
__device__ void _cg_tile_sync(thread_block_tile g) { __syncwarp(g._cg_mask); }
__device__ unsigned int _cg_tile_thread_rank(thread_block_tile g) { return __laneid() & (g._cg_size - 1u); }
__device__ unsigned int _cg_tile_size(thread_block_tile g) { return g._cg_size; }
__device__ unsigned int _cg_tile_num_threads(thread_block_tile g) { return g._cg_size; }
__device__ unsigned int _cg_tile_meta_group_rank(thread_block_tile g) { return g._cg_meta_rank; }
__device__ unsigned int _cg_tile_meta_group_size(thread_block_tile g) { return g._cg_meta_size; }
template <typename T> __device__ T _cg_tile_shfl(thread_block_tile g, T v, int src) {
    return __shfl_sync(g._cg_mask, v, src, g._cg_size);
}
template <typename T> __device__ T _cg_tile_shfl_up(thread_block_tile g, T v, unsigned int d) {
    return __shfl_up_sync(g._cg_mask, v, d, g._cg_size);
}
template <typename T> __device__ T _cg_tile_shfl_down(thread_block_tile g, T v, unsigned int d) {
    return __shfl_down_sync(g._cg_mask, v, d, g._cg_size);
}
template <typename T> __device__ T _cg_tile_shfl_xor(thread_block_tile g, T v, unsigned int m) {
    return __shfl_xor_sync(g._cg_mask, v, m, g._cg_size);
}
__device__ int _cg_tile_any(thread_block_tile g, int p) { return (__ballot_sync(g._cg_mask, p) & g._cg_mask) != 0u; }
__device__ int _cg_tile_all(thread_block_tile g, int p) {
    return (__ballot_sync(g._cg_mask, p) & g._cg_mask) == g._cg_mask;
}
__device__ unsigned int _cg_tile_ballot(thread_block_tile g, int p) {
    return (__ballot_sync(g._cg_mask, p) & g._cg_mask) >> g._cg_base;
}
template <typename T> __device__ unsigned int _cg_tile_match_any(thread_block_tile g, T v) {
    return (__match_any_sync(g._cg_mask, v) & g._cg_mask) >> g._cg_base;
}

__device__ coalesced_group _cg_coalesced_threads() { coalesced_group g; g._cg_mask = __activemask(); return g; }
__device__ void _cg_coalesced_sync(coalesced_group g) { __syncwarp(g._cg_mask); }
__device__ unsigned int _cg_coalesced_size(coalesced_group g) { return __popc(g._cg_mask); }
__device__ unsigned int _cg_coalesced_num_threads(coalesced_group g) { return __popc(g._cg_mask); }
__device__ unsigned int _cg_coalesced_thread_rank(coalesced_group g) {
    return __popc(g._cg_mask & __lanemask_lt());
}
__device__ int _cg_lane_of_rank(unsigned int mask, unsigned int r) {
    for (unsigned int i = 0; i < r; i++) mask &= mask - 1u;
    return __ffs(mask) - 1;
}
template <typename T> __device__ T _cg_coalesced_shfl(coalesced_group g, T v, unsigned int r) {
    return __shfl_sync(g._cg_mask, v, _cg_lane_of_rank(g._cg_mask, r));
}
template <typename T> __device__ T _cg_coalesced_shfl_down(coalesced_group g, T v, unsigned int d) {
    unsigned int r = _cg_coalesced_thread_rank(g) + d;
    int lane = r < __popc(g._cg_mask) ? _cg_lane_of_rank(g._cg_mask, r) : (int)__laneid();
    return __shfl_sync(g._cg_mask, v, lane);
}
template <typename T> __device__ T _cg_coalesced_shfl_up(coalesced_group g, T v, unsigned int d) {
    unsigned int r = _cg_coalesced_thread_rank(g);
    int lane = r >= d ? _cg_lane_of_rank(g._cg_mask, r - d) : (int)__laneid();
    return __shfl_sync(g._cg_mask, v, lane);
}
__device__ int _cg_coalesced_any(coalesced_group g, int p) { return __any_sync(g._cg_mask, p); }
__device__ int _cg_coalesced_all(coalesced_group g, int p) { return __all_sync(g._cg_mask, p); }

__device__ grid_group _cg_this_grid() { grid_group g; g._cg_unused = 0; return g; }
__device__ unsigned long long _cg_grid_thread_rank(grid_group g) {
    unsigned long long b = blockIdx.x + (unsigned long long)gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    return b * _cg_block_threads() + _cg_linear_tid();
}
__device__ unsigned long long _cg_grid_size(grid_group g) {
    return (unsigned long long)gridDim.x * gridDim.y * gridDim.z * _cg_block_threads();
}
__device__ unsigned long long _cg_grid_num_threads(grid_group g) { return _cg_grid_size(g); }

template <typename G> __device__ void _cg_sync(G g) { g.sync(); }

template <typename T> __device__ T _cg_op_plus(T a, T b) { return a + b; }
template <typename T> __device__ T _cg_op_less(T a, T b) { return b < a ? b : a; }
template <typename T> __device__ T _cg_op_greater(T a, T b) { return a < b ? b : a; }
template <typename T> __device__ T _cg_op_bit_and(T a, T b) { return a & b; }
template <typename T> __device__ T _cg_op_bit_or(T a, T b) { return a | b; }
template <typename T> __device__ T _cg_op_bit_xor(T a, T b) { return a ^ b; }
"""

OPS = ("plus", "less", "greater", "bit_and", "bit_or", "bit_xor")


def _op_functions() -> str:
    """reduce / inclusive_scan / exclusive_scan for each operator, over a tile."""
    out = []
    for op in OPS:
        out.append(f"""
template <typename T> __device__ T _cg_reduce_{op}(thread_block_tile g, T v) {{
    for (unsigned int o = g._cg_size >> 1; o > 0; o >>= 1)
        v = _cg_op_{op}(v, __shfl_xor_sync(g._cg_mask, v, o, g._cg_size));
    return v;
}}
template <typename T> __device__ T _cg_inclusive_scan_{op}(thread_block_tile g, T v) {{
    unsigned int r = __laneid() & (g._cg_size - 1u);
    for (unsigned int o = 1; o < g._cg_size; o <<= 1) {{
        T w = __shfl_up_sync(g._cg_mask, v, o, g._cg_size);
        if (r >= o) v = _cg_op_{op}(v, w);
    }}
    return v;
}}
template <typename T> __device__ T _cg_exclusive_scan_{op}(thread_block_tile g, T v) {{
    T w = __shfl_up_sync(g._cg_mask, _cg_inclusive_scan_{op}(g, v), 1, g._cg_size);
    return (__laneid() & (g._cg_size - 1u)) == 0 ? (T)0 : w;
}}""")
    return "".join(out)


_HELPERS = PRELUDE + _op_functions()     # what every file that uses the groups is given

KINDS = {"_cg_block": "block", "_cg_tile": "tile", "_cg_coalesced": "coalesced", "_cg_grid": "grid"}
TYPES = ("thread_block_tile", "thread_block", "thread_group", "coalesced_group", "grid_group")
FUNCTIONS = ("this_thread_block", "tiled_partition", "coalesced_threads", "this_grid", "sync",
             "reduce", "inclusive_scan", "exclusive_scan")
# what the error for a method that is not there says, beyond "outside the subset"
WHY = {
    ("grid", "sync"): "grid.sync() needs a cooperative launch (every block resident at once), "
                      "which simt does not emulate",
    ("coalesced", "ballot"): "coalesced_group::ballot is outside simt's subset; use "
                             "__ballot_sync(__activemask(), p)",
}
_INIT_TYPE = {"_cg_this_thread_block": "thread_block", "_cg_tiled_partition": "thread_block_tile",
              "_cg_coalesced_threads": "coalesced_group", "_cg_this_grid": "grid_group"}


def _pad(new: str, old: str) -> str:
    """new, left-padded with blanks to old's length where it is shorter (so that what
    follows keeps its column)."""
    return " " * max(0, len(old) - len(new)) + new


def rewrite(text: str, filename: str) -> str:
    """The file's cooperative groups as C (see the module docstring); text without the
    word ``cooperative_groups`` is returned as it is."""
    from .frontend import _coord_of

    if not re.search(r"\bcooperative_groups\b", text):
        return text

    def err(msg, pos):
        return CompileError(msg, _coord_of(text, pos, filename))

    aliases = {"cooperative_groups"}
    for m in re.finditer(r"\bnamespace\s+(\w+)\s*=\s*cooperative_groups\s*;", text):
        aliases.add(m.group(1))
    text = re.sub(r"\bnamespace\s+\w+\s*=\s*cooperative_groups\s*;", lambda m: " " * len(m.group(0)), text)
    unqualified = bool(re.search(r"\busing\s+namespace\s+cooperative_groups\s*;", text))
    text = re.sub(r"\busing\s+namespace\s+cooperative_groups\s*;", lambda m: " " * len(m.group(0)), text)
    defined = set(re.findall(r"\b(\w+)\s*\([^;{]*\)\s*\{", text))

    # cg::name -> name (types, operators) or _cg_name (functions)
    qual = re.compile(r"\b(" + "|".join(sorted(aliases)) + r")\s*::\s*(\w+)")

    def qualified(m):
        name = m.group(2)
        if name in FUNCTIONS:
            return _pad("_cg_" + name, m.group(0))
        if name in TYPES or name in OPS:
            return _pad(name, m.group(0))
        raise err(f"{m.group(1)}::{name} is outside simt's subset of cooperative groups", m.start())
    text = qual.sub(qualified, text)
    if unqualified:
        names = [f for f in FUNCTIONS if f not in defined]
        text = re.sub(r"(?<![\w.>])(" + "|".join(names) + r")(?=\s*[(<])", r"_cg_\1", text)

    text = _templated_partitions(text, err)
    for m in list(re.finditer(r"\bthread_block_tile\s*<", text))[::-1]:
        close = match_angle(text, m.end() - 1)
        if close < 0:
            raise err("cannot read this thread_block_tile<...>", m.start())
        text = text[:m.start()] + text[m.start():close + 1].split("<")[0].ljust(close + 1 - m.start()) + text[close + 1:]
    text = _collectives(text, err)
    # auto / thread_group g = <a group>: the group's own type
    text = re.sub(r"\b(auto|thread_group)(\s+\w+\s*=\s*)(_cg_\w+)\b",
                  lambda m: (_INIT_TYPE[m.group(3)] + m.group(2) + m.group(3))
                  if m.group(3) in _INIT_TYPE else m.group(0), text)
    params = {m.start() for m in _TG_PARAM.finditer(text)}
    m = next((m for m in re.finditer(r"\bthread_group\b", text) if m.start() not in params), None)
    if m:
        raise err("a thread_group here is outside simt's subset: declare it with its group "
                  "(thread_group g = tiled_partition(block, 16);) or take it as a parameter", m.start())
    text = _thread_group_params(text, err)
    return ('#line 1 "<cooperative_groups>"\n' + _HELPERS + "\n"
            + (text if text.lstrip().startswith("#") else f'#line 1 "{filename}"\n' + text))


def _templated_partitions(text, err):
    """``_cg_tiled_partition<N>(g)`` -> ``_cg_tiled_partition(g, N)``."""
    rx = re.compile(r"\b_cg_tiled_partition\s*<")
    while True:
        m = rx.search(text)
        if not m:
            return text
        got = angle_call(text, m.end() - 1)
        if got is None:
            raise err("cannot read this tiled_partition<N>(...)", m.start())
        close, po = got
        n = " ".join(text[m.end():close].split())
        if not re.fullmatch(r"(1|2|4|8|16|32)u?", n):
            raise err(f"tiled_partition<{n}>: tiles of 1, 2, 4, 8, 16 or 32 threads are in "
                      "simt's subset", m.start())
        end = close_paren(text, po + 1)
        old = text[m.start():end]
        new = f"_cg_tiled_partition({text[po + 1:end - 1].strip()}, {n})"
        text = text[:m.start()] + _pad(new, old) + text[end:]


def _collectives(text, err):
    """``_cg_reduce(g, v, plus<T>())`` -> ``_cg_reduce_plus(g, v)``; scans likewise, plus
    when no operator is named."""
    rx = re.compile(r"\b_cg_(reduce|inclusive_scan|exclusive_scan)\s*\(")
    pos = 0
    while True:
        m = rx.search(text, pos)
        if not m:
            return text
        end = close_paren(text, m.end())
        spans = split_spans(text, m.end(), end - 1)
        args = [text[a:b].strip() for a, b in spans]
        op = "plus"
        if len(args) == 3:
            om = re.fullmatch(r"(\w+)\s*(?:<[^<>]*>)?\s*\(\s*\)", args[2])
            if not om or om.group(1) not in OPS:
                raise err(f"{m.group(1)}: the operator must be one of cooperative groups' "
                          f"{', '.join(o + '<T>()' for o in OPS)}", m.start())
            op = om.group(1)
        elif not (len(args) == 2 and m.group(1) != "reduce"):
            raise err(f"{m.group(1)} takes a tile, a value and an operator", m.start())
        old = text[m.start():end]
        new = f"_cg_{m.group(1)}_{op}({args[0]}, {args[1]})"
        text = text[:m.start()] + _pad(new, old) + text[end:]
        pos = m.start() + 1


_TG_PARAM = re.compile(r"\bthread_group\s*&?\s*\w+\s*[,)]")


def _thread_group_params(text, err):
    """A function with a ``thread_group`` parameter becomes a template on it, so that each
    kind of group it is called with gets its own instance."""
    done = set()
    while True:
        m = next((m for m in _TG_PARAM.finditer(text) if m.start() not in done), None)
        if not m:
            return text
        # the parameter list's "(", then the start of the declaration: after the
        # previous ; or } or directive line
        i, depth = m.start(), 0
        while i > 0 and (text[i - 1] != "(" or depth):
            depth += {")": 1, "(": -1}.get(text[i - 1], 0)
            i -= 1
        open_paren = i - 1
        while i > 0 and text[i - 1] not in ";}" and not (
                text[i - 1] == "\n" and text[i:].lstrip(" \t").startswith("#")):
            i -= 1
        start = i + len(text[i:]) - len(text[i:].lstrip())
        if re.match(r"template\s*<", text[start:]):
            raise err("a function template with a thread_group parameter is outside simt's subset",
                      m.start())
        header = "template <typename thread_group> "
        text = text[:start] + header + text[start:]
        done = {p + len(header) if p >= start else p for p in done}
        # every thread_group parameter of this function is now the template's
        close = close_paren(text, open_paren + len(header) + 1)
        for mm in _TG_PARAM.finditer(text, start, close):
            done.add(mm.start())
