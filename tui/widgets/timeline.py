"""A stream timeline: one row per engine and per stream, operations as coloured bars,
the synchronous run above the asynchronous one on the same time axis, so the overlap
(or its absence) shows at a glance.

Standalone: it takes a ``simt.streams.Result`` (and optionally a measured
``simt.streams.Schedule`` from ``simt streams --real``) and needs nothing else from the
TUI.  Engine rows carry the stream's digit in a bar coloured by the operation's kind;
stream rows carry the kind's glyph (> H2D, # kernel, < D2H); the host row shows API
calls (-) and the time the host waits in a blocking call (.).
"""
from __future__ import annotations

import math

from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

KIND_STYLE = {"h2d": "bold #000000 on #5fafff",     # host to device: blue
              "kernel": "bold #000000 on #5fd787",  # kernel: green
              "d2h": "bold #000000 on #ffaf5f"}     # device to host: orange
HOST_STYLE = {"-": "#000000 on #bcbcbc", ".": "#6c6c6c"}
LABEL_W = 10


def _cells(bars, scale_ms: float, width: int):
    """[(char, style)] * width for one row of (start, end, char, interval|None) bars."""
    from simt.streams import KIND_CHAR

    cells: list[tuple[str, str]] = [(" ", "")] * width
    for a, b, ch, iv in sorted(bars, key=lambda x: -(x[1] - x[0])):
        c0 = int(a / scale_ms) if scale_ms > 0 else 0
        c1 = max(int(math.ceil(b / scale_ms - 1e-9)) if scale_ms > 0 else 0, c0 + 1)
        if iv is None:
            style = HOST_STYLE.get(ch, "")
        else:
            style = KIND_STYLE.get(iv.kind, "")
            if ch == KIND_CHAR.get(iv.kind) and iv.pageable:
                style += " italic"
        for c in range(max(c0, 0), min(c1, width)):
            cells[c] = (ch, style)
    return cells


def render_schedules(pairs, width: int, span_ms: float | None = None,
                     per_stream: bool = True) -> Text:
    """Rich text for titled schedules on one time axis ``width`` columns wide."""
    from simt.streams import timeline_rows

    width = max(int(width), 8)
    span = span_ms or max((sc.total_ms for _t, sc in pairs), default=0.0) or 1e-9
    scale = span / width
    t = Text(no_wrap=True, overflow="crop")
    for k, (title, sched) in enumerate(pairs):
        if k:
            t.append("\n")
        t.append(f"{title}", style="bold")
        t.append(f"  {sched.total_ms:.3f} ms\n", style="bold #ffd75f")
        show_streams = per_stream and ("synchronous" not in title or "asynchronous" in title)
        for label, bars in timeline_rows(sched, per_stream=show_streams):
            if label == "host" and not bars:
                continue
            t.append(f"{label:<{LABEL_W}}", style="#8a8a8a")
            t.append("│", style="#4e4e4e")
            for ch, style in _cells(bars, scale, width):
                t.append(ch, style=style)
            t.append("\n")
    # time axis
    t.append(" " * LABEL_W + "└", style="#4e4e4e")
    ticks = 4
    axis = [" "] * width
    for i in range(ticks + 1):
        col = min(int(i * (width - 1) / ticks), width - 1)
        lab = f"{i * span / ticks:.2f}"
        pos = max(0, min(col, width - len(lab)))
        axis[pos:pos + len(lab)] = list(lab)
    t.append("".join(axis[:width]) + " ms", style="#8a8a8a")
    return t


def legend() -> Text:
    t = Text(no_wrap=True, overflow="ellipsis")
    for kind, name in (("h2d", " H2D copy "), ("kernel", " kernel "), ("d2h", " D2H copy ")):
        t.append(name, style=KIND_STYLE[kind])
        t.append(" ")
    t.append(" - ", style=HOST_STYLE["-"])
    t.append(" host API call ")
    t.append(".", style=HOST_STYLE["."])
    t.append(" host waits   engine rows: stream digit, stream rows: > # <", style="#8a8a8a")
    return t


class TimelineView(Widget):
    """Synchronous and asynchronous timelines of a ``simt.streams.Result`` (plus an
    optional measured schedule) on one time axis, one row per engine and per stream."""

    DEFAULT_CSS = """
    TimelineView { height: auto; min-height: 6; padding: 0 1; }
    """

    result = reactive(None, layout=True)
    measured = reactive(None, layout=True)

    def __init__(self, result=None, measured=None, *, name=None, id=None, classes=None):
        super().__init__(name=name, id=id, classes=classes)
        self.set_reactive(TimelineView.result, result)
        self.set_reactive(TimelineView.measured, measured)

    def pairs(self):
        r = self.result
        if r is None:
            return []
        out = [("synchronous", r.sync), ("asynchronous", r.async_)]
        if self.measured is not None:
            out.append(("asynchronous, measured on the GPU", self.measured))
        return out

    def bar_width(self) -> int:
        w = self.size.width or 80
        return max(8, w - LABEL_W - 3 - 2)

    def render(self) -> Text:
        if self.result is None:
            return Text("no timeline yet", style="dim")
        return render_schedules(self.pairs(), self.bar_width())

    def get_content_height(self, container, viewport, width) -> int:
        r = self.result
        if r is None:
            return 1
        rows = 0
        for title, sched in self.pairs():
            n_eng = len(sched.engines) + (1 if sched.host else 0)
            n_str = len(sched.streams) if "asynchronous" in title else 0
            rows += 1 + n_eng + n_str
        return rows + len(self.pairs()) - 1 + 1
