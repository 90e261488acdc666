"""Counters with their Nsight Compute names and a plain label: for the current source
line and for the whole launch so far."""
from __future__ import annotations

from textual.reactive import reactive
from textual.widgets import DataTable

from simt import counters as C
from tui import fmt
from tui.frame import Frame

EXTRA = {
    "simt__atomic_serialized_steps.sum": "atomic serialized steps (emulator)",
    "simt__atomic_warp_instructions.sum": "warp atomic instructions (emulator)",
}
ROWS = [C.INST, C.THREAD_INST, C.RATIO, C.SHARED_LD, C.SHARED_ST, C.WAVES_LD, C.WAVES_ST,
        C.CONFL_LD, C.CONFL_ST, C.REQ_LD, C.REQ_ST, C.REQ_ATOM, C.REQ_RED, C.SECT_LD,
        C.SECT_ST, "simt__atomic_warp_instructions.sum", "simt__atomic_serialized_steps.sum"]


def label(metric: str) -> str:
    return C.LABELS.get(metric) or EXTRA.get(metric) or metric


class CountersTable(DataTable):
    DEFAULT_CSS = """
    CountersTable { height: 1fr; }
    """

    frame: reactive[Frame | None] = reactive(None, always_update=True, layout=False)

    def on_mount(self) -> None:
        self.cursor_type = "row"
        self.zebra_stripes = True
        self.add_column("counter", key="label", width=40)
        self.add_column("line", key="line", width=9)
        self.add_column("launch", key="total", width=10)
        self.add_column("Nsight Compute metric", key="metric")
        for m in ROWS:
            self.add_row(label(m), "", "", m, key=m)
        self._shown: dict = {}

    def watch_frame(self, f: Frame | None) -> None:
        if f is None or not self.is_mounted or not self.row_count:
            return
        line = f.event.line if f.event is not None else None
        self.columns["line"].label = f"line {line}" if line is not None else "line"
        lc = f.line_counters.get(line, {}) if line is not None else {}
        for m in ROWS:
            tot = f.metrics.get(m)
            cur = lc.get(m)
            vals = (fmt.num(cur) if cur is not None else "", fmt.num(tot) if tot is not None else "")
            if self._shown.get(m) != vals:
                self._shown[m] = vals
                self.update_cell(m, "line", vals[0])
                self.update_cell(m, "total", vals[1])
