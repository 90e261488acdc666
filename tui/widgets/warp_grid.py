"""The warps of the selected block: one row of 32 lane cells per warp.

Cells are coloured by lane state (active, masked off by divergence, waiting at a
barrier, exited) and show the chosen variable's value in that lane.  Each row ends with
the warp's active mask and the line of the branch that split it (when there is room).
"""
from __future__ import annotations

import numpy as np
from tui.widgets.lines import LinesWidget, Runs

from tui import fmt

LEGEND = [("active", fmt.STYLE_ACTIVE), ("masked off", fmt.STYLE_MASKED),
          ("at barrier", fmt.STYLE_WAITING), ("exited", fmt.STYLE_EXITED)]


def lane_states(ws) -> np.ndarray:
    """Per lane: 0 active, 1 masked off (divergence), 2 waiting at a barrier, 3 exited."""
    out = np.full(32, 3, np.int8)
    alive = ~fmt.lane_bits(ws.exited)
    if ws.state == "done":
        return out
    if ws.state == "waiting":
        out[alive] = 2
        return out
    out[alive] = 1
    out[fmt.lane_bits(ws.active)] = 0
    return out


STATE_STYLES = [fmt.STYLE_ACTIVE, fmt.STYLE_MASKED, fmt.STYLE_WAITING, fmt.STYLE_EXITED]
STATE_STYLES_ALT = [fmt.STYLE_ACTIVE_ALT, fmt.STYLE_MASKED_ALT, fmt.STYLE_WAITING_ALT,
                    fmt.STYLE_EXITED_ALT]


class WarpGrid(LinesWidget):
    DEFAULT_CSS = """
    WarpGrid { height: 1fr; text-wrap: nowrap; text-overflow: clip; min-height: 3; }
    """


    def build(self, width: int, height: int) -> list:
        f = self.frame
        width = max(width, 20)
        height = max(height, 2)
        t = Runs()
        if f is None or not f.warps:
            t.append("no warps (the launch has not started or has finished its blocks)", style="dim")
            return t.lines
        nw = len(f.warps)
        label_w = 4 if nw <= 10 else 5
        tail_w = 22
        avail = width - label_w
        # widest cells first: with the mask column and a gap every 8 lanes, then without
        # the mask column, then without the gaps
        show_tail, sep = True, True
        cw = (avail - tail_w - 3) // 32
        if cw < 3:
            show_tail = False
            cw = (avail - 3) // 32
            if cw < 3:
                sep = avail // 32 < 3 and (avail - 3) // 32 >= 2
                cw = (avail - 3) // 32 if sep else avail // 32
        cw = max(1, min(cw, 7))
        # header: variable and legend
        var = f.variable or "-"
        t.append(f"block {f.block}", style="bold")
        t.append(f"  {var}", style="bold #ffd75f")
        t.append(" per lane  ", style="dim")
        for name, st in LEGEND:
            t.append("  ", style=st)
            t.append(f" {name} ", style="")
        t.append("\n")
        rows = height - 1
        first = 0
        if nw > rows:
            first = min(max(0, f.warp - rows // 2), nw - rows)
        cur = f.event
        vals = f.values
        for k in range(first, min(nw, first + rows)):
            ws = f.warps[k]
            is_cur = cur is not None and cur.block == f.block and cur.warp == k
            mark = "▶" if k == f.warp else " "
            t.append(f"{mark}w{k:<{label_w - 3}}", style="bold reverse" if k == f.warp else "")
            t.append("*" if is_cur else " ", style="bold #ffd75f")
            states = lane_states(ws)
            row = None
            if vals is not None and len(vals) >= (k + 1) * 32:
                row = vals[k * 32:(k + 1) * 32]
            for lane in range(32):
                if sep and lane and lane % 8 == 0:
                    t.append(" ")
                s = "" if row is None else fmt.compact(row[lane], cw if cw <= 3 else cw - 1)
                styles = STATE_STYLES_ALT if (cw <= 3 and lane % 2) else STATE_STYLES
                t.append(f"{s:>{cw}}"[:cw], style=styles[states[lane]])
            if show_tail:
                tail = f" {fmt.hexmask(ws.active)}"
                if ws.state == "waiting":
                    tail += " bar"
                elif ws.state == "done":
                    tail += " done"
                elif ws.branch_line is not None:
                    tail += f" ⑂L{ws.branch_line}"
                t.append(tail[:tail_w], style="#afafaf")
            if k != min(nw, first + rows) - 1:
                t.append("\n")
        return t.lines
