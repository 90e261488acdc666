"""The selected warp in full: state, active mask, the branch that split it, and the
chosen variable's exact value in each of its 32 lanes."""
from __future__ import annotations

from tui.widgets.lines import LinesWidget, Runs

from tui import fmt
from tui.widgets.warp_grid import lane_states


class LaneDetail(LinesWidget):
    DEFAULT_CSS = """
    LaneDetail { height: 3; text-wrap: nowrap; text-overflow: clip; }
    """


    def build(self, width: int, height: int) -> list:
        f = self.frame
        t = Runs()
        if f is None or not f.warps or f.warp >= len(f.warps):
            return t.lines
        ws = f.warps[f.warp]
        width = max(width, 40)
        n = fmt.popcount(ws.active)
        t.append(f"warp {ws.warp}", style="bold")
        t.append(f" of block {f.block}: ")
        state = {"running": "running", "waiting": "waiting at __syncthreads()",
                 "done": "finished"}.get(ws.state, ws.state)
        t.append(state, style="bold")
        if ws.state == "running":
            t.append(f" at line {ws.line}")
        t.append(f"  mask {fmt.hexmask(ws.active)} ({n}/32 active)")
        if ws.divergent:
            t.append(f"  {fmt.popcount(ws.divergent)} masked off", style="#ffaf00")
            if ws.branch_line is not None:
                t.append(f" by the branch at line {ws.branch_line}", style="#ffaf00")
        if ws.exited:
            t.append(f"  {fmt.popcount(ws.exited)} exited", style="#8a8a8a")
        vals = f.values
        if vals is None or len(vals) < (ws.warp + 1) * 32:
            if f.variable:
                t.append(f"\n{f.variable}: not a register here", style="dim")
            return t.lines
        row = vals[ws.warp * 32:(ws.warp + 1) * 32]
        texts = [fmt.compact(v, 10) for v in row]
        cell = max(len(s) for s in texts) + 1
        var = (f.variable or "")[:6]
        label_w = 12
        per = 32
        while per > 4 and label_w + per * cell > width:
            per //= 2
        states = lane_states(ws)
        for start in range(0, 32, per):
            t.append("\n")
            t.append(f"{var if start == 0 else '':<6} {'l' + str(start) + ':':<4} ", style="#ffd75f")
            for lane in range(start, start + per):
                t.append(f"{texts[lane]:>{cell}}", style=fmt.FG_STATE[states[lane]])
        return t.lines
