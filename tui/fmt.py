"""Small text helpers shared by the widgets (no Textual, no state)."""
from __future__ import annotations

import math

import numpy as np

# Lane-state colours: the same everywhere (warp grid, legend, lane detail).
STYLE_ACTIVE = "bold #ffffff on #1d6b3a"
STYLE_MASKED = "#ffffff on #7a5a00"
STYLE_WAITING = "#ffffff on #1f4e8c"
STYLE_EXITED = "#7a7a7a on #262626"
# the same, a shade lighter: every other lane, so narrow cells stay apart
STYLE_ACTIVE_ALT = "bold #ffffff on #268a4b"
STYLE_MASKED_ALT = "#ffffff on #94700a"
STYLE_WAITING_ALT = "#ffffff on #2a62aa"
STYLE_EXITED_ALT = "#7a7a7a on #333333"
STYLE_CURRENT_LINE = "on #2f4f7f"
STYLE_ERROR_LINE = "bold #ffffff on #8b1a1a"
STYLE_MARK_LINE = "on #5a4a00"
STYLE_CONFLICT = "bold #ffffff on #a02020"
STYLE_TOUCHED = "bold #000000 on #5fd7a7"
STYLE_BROADCAST = "bold #000000 on #87afd7"


def compact(v, width: int) -> str:
    """``v`` in at most ``width`` characters (k/M/G suffixes, fewer float digits, ``…``)."""
    if v is None:
        return ""
    if isinstance(v, (bool, np.bool_)):
        s = "1" if v else "0"
        return s
    if isinstance(v, (np.floating, float)):
        f = float(v)
        if math.isnan(f):
            return "nan"[:width]
        if math.isinf(f):
            return ("inf" if f > 0 else "-inf")[:width] if width >= 3 else "∞"
        if f == int(f) and abs(f) < 10 ** width:
            s = str(int(f))
            if len(s) <= width:
                return s
        for p in range(max(width, 1), 0, -1):
            s = f"{f:.{p}g}".replace("e+0", "e").replace("e-0", "e-").replace("e+", "e")
            if s.startswith("0.") and len(s) > width:
                s = s[1:]
            elif s.startswith("-0.") and len(s) > width:
                s = "-" + s[2:]
            if len(s) <= width:
                return s
        return "…"
    try:
        i = int(v)
    except (TypeError, ValueError):
        s = str(v)
        return s if len(s) <= width else s[:max(width - 1, 0)] + "…"
    s = str(i)
    if len(s) <= width:
        return s
    a = abs(i)
    sign = "-" if i < 0 else ""
    for div, suf in ((1_000, "k"), (1_000_000, "M"), (1_000_000_000, "G"), (10 ** 12, "T")):
        if a >= div:
            q = a / div
            s = f"{sign}{q:.0f}{suf}"
            if len(s) <= width:
                if q < 10 and len(f"{sign}{q:.1f}{suf}") <= width:
                    t = f"{sign}{q:.1f}{suf}"
                    return t if not t.endswith(".0" + suf) else s
                return s
    return "…" if width < 2 else (sign + "…")[-width:]


def num(v) -> str:
    """Thousands separators for ints; a few digits for floats."""
    if v is None:
        return "n/a"
    if isinstance(v, (bool, np.bool_)):
        return str(bool(v))
    if isinstance(v, (int, np.integer)):
        return f"{int(v):,}"
    f = float(v)
    if f == int(f) and abs(f) < 1e15:
        return f"{int(f):,}"
    return f"{f:.4g}"


def popcount(mask: int) -> int:
    return bin(int(mask) & 0xFFFFFFFF).count("1")


def hexmask(mask: int) -> str:
    return f"0x{int(mask) & 0xFFFFFFFF:08x}"


def lane_bits(mask: int) -> np.ndarray:
    """The 32 bits of ``mask`` as a bool array (lane 0 first)."""
    return ((int(mask) >> np.arange(32)) & 1).astype(bool)


def ranges(lanes) -> str:
    """[0,1,2,3,7,9,10] -> '0-3,7,9-10'."""
    lanes = sorted(int(x) for x in lanes)
    out = []
    i = 0
    while i < len(lanes):
        j = i
        while j + 1 < len(lanes) and lanes[j + 1] == lanes[j] + 1:
            j += 1
        out.append(str(lanes[i]) if i == j else f"{lanes[i]}-{lanes[j]}")
        i = j + 1
    return ",".join(out)

# Foreground-only versions (text that is not a cell): active, masked, waiting, exited.
FG_STATE = ["#5fd787", "#d7af5f", "#5fafff", "#6c6c6c"]


def ms(v) -> str:
    """A device time: microseconds below 0.1 ms, else milliseconds."""
    if v is None:
        return "n/a"
    v = float(v)
    return f"{v * 1000:.1f} µs" if v < 0.1 else f"{v:.3f} ms"
