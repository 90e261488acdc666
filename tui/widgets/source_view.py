"""The CUDA source with the current line highlighted and a gutter of per-line figures.

Gutter columns (like Nsight Compute's source view):
``exec`` warp instructions executed on the line so far, ``eff`` SIMT efficiency (active
lanes / 32), ``conf`` shared-memory bank conflicts (extra wavefronts), ``ser`` atomic
serialization (serialized steps per warp atomic), ``san`` sanitizer findings.
"""
from __future__ import annotations

from rich.segment import Segment
from rich.syntax import Syntax
from rich.text import Text
from textual.geometry import Size
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from tui import fmt
from tui.widgets.lines import style as _style

INST = "smsp__inst_executed.sum"
THREAD_INST = "smsp__thread_inst_executed.sum"
CONFL = ("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
         "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum")
SER_STEPS = "simt__atomic_serialized_steps.sum"
SER_INST = "simt__atomic_warp_instructions.sum"

GUTTER = [("line", 4), ("exec", 5), ("eff", 4), ("conf", 4), ("ser", 4), ("san", 3)]
GUTTER_W = sum(w + 1 for _, w in GUTTER)      # columns, separators and the bar


def gutter_cells(ln: int, c: dict | None, n_findings: int) -> list[tuple[str, str]]:
    """The gutter of line ``ln`` as (text, style) pairs, each padded to its column."""
    out = [(f"{ln:>4} ", "#6c6c6c")]
    if not c or not c.get(INST):
        out.append((" " * (GUTTER_W - 5 - 4), ""))  # exec, eff, conf, ser
    else:
        inst = c.get(INST, 0)
        out.append((f"{fmt.compact(inst, 5):>5} ", "#afafaf"))
        eff = c.get(THREAD_INST, 0) / inst / 32 * 100 if inst else 0
        es = "#5fd787" if eff >= 99.5 else ("#d7af5f" if eff >= 50 else "#ff5f5f")
        shown = 100 if eff >= 99.95 else min(99, int(eff))   # never round 99.8% up to 100%
        out.append((f"{shown:>3d}% ", es))
        conf = sum(c.get(k, 0) for k in CONFL)
        out.append((f"{fmt.compact(conf, 4):>4} " if conf else "     ",
                    "bold #ff5f5f" if conf else ""))
        si = c.get(SER_INST, 0)
        if si:
            ser = c.get(SER_STEPS, 0) / si
            s = f"x{ser:.0f}" if ser >= 9.5 else f"x{ser:.1f}".replace(".0", "")
            out.append((f"{s[:4]:>4} ", "bold #ffaf00" if ser > 1 else "#afafaf"))
        else:
            out.append(("     ", ""))
    if n_findings:
        out.append((f"{'!' + fmt.compact(n_findings, 2):>3}", "bold #ff5f5f"))
    else:
        out.append(("   ", ""))
    out.append(("│", "#4e4e4e"))
    return out


class SourceView(ScrollView, can_focus=True):
    """Read-only source listing; line 1 of the view is a sticky gutter header."""

    DEFAULT_CSS = """
    SourceView { background: $surface; scrollbar-size-vertical: 1; }
    """

    current_line: reactive[int | None] = reactive(None, always_update=True)
    mark_line: reactive[int | None] = reactive(None)
    error_line: reactive[int | None] = reactive(None)

    def __init__(self, source: str = "", **kw) -> None:
        super().__init__(**kw)
        self.line_counters: dict = {}
        self.finding_lines: dict[int, int] = {}
        self.set_source(source)

    def set_source(self, source: str) -> None:
        self.source = source or ""
        code = self.source.expandtabs(4)
        lines = code.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        try:
            hl = Syntax(code, "cuda", theme="monokai").highlight(code)
            hl_lines = hl.split("\n", allow_blank=True)
        except Exception:  # pragma: no cover - pygments without the lexer
            hl_lines = [Text(s) for s in lines]
        self._lines: list[Text] = [(hl_lines[i] if i < len(hl_lines) else Text(s))
                                   for i, s in enumerate(lines)]
        for t in self._lines:
            t.rstrip()
            t.end = ""
        width = max((len(s) for s in lines), default=0) + GUTTER_W + 2
        self.virtual_size = Size(width, len(self._lines) + 1)
        self._cache: dict = {}
        self._code_cache: dict = {}
        self.refresh()

    def update_figures(self, line_counters: dict, findings) -> None:
        """New per-line counters and findings (``[(line, count)]``)."""
        self.line_counters = line_counters or {}
        fl: dict[int, int] = {}
        for ln, count in findings or ():
            if ln is not None:
                fl[int(ln)] = fl.get(int(ln), 0) + int(count or 1)
        self.finding_lines = fl
        self.refresh()

    def watch_current_line(self, line: int | None) -> None:
        if line is not None:
            self.show_line(line)
        self.refresh()

    def watch_mark_line(self, line: int | None) -> None:
        if line is not None:
            self.show_line(line, center=True)
        self.refresh()

    def watch_error_line(self, line: int | None) -> None:
        if line is not None:
            self.show_line(line, center=True)
        self.refresh()

    def show_line(self, line: int, center: bool = False) -> None:
        """Scroll so that source line ``line`` (1-based) is visible."""
        h = max(1, self.scrollable_content_region.height - 1)
        top = int(self.scroll_y)
        row = line - 1
        if center or row < top or row >= top + h:
            self.scroll_to(y=max(0, row - h // 3), animate=False, immediate=True)

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        sx = int(self.scroll_x)
        if y == 0:
            return self._header(width)
        ln = int(self.scroll_y) + y        # source line number (1-based)
        if ln > len(self._lines):
            return Strip.blank(width)
        cells = tuple(gutter_cells(ln, self.line_counters.get(ln), self.finding_lines.get(ln, 0)))
        marker, line_style = " ", None
        if ln == self.error_line:
            marker, line_style = "✖", fmt.STYLE_ERROR_LINE
        elif ln == self.current_line:
            marker, line_style = "▶", fmt.STYLE_CURRENT_LINE
        elif ln == self.mark_line:
            marker, line_style = "●", fmt.STYLE_MARK_LINE
        key = (width, sx, cells, marker)
        hit = self._cache.get(ln)
        if hit is not None and hit[0] == key:
            return hit[1]
        segs = [Segment(text, _style(st)) for text, st in cells]
        code = self._code_segments(ln, sx)
        bg = _style(line_style) if line_style else None
        segs.append(Segment(marker, _style("bold #ffd75f") + bg if bg else _style("bold #ffd75f")))
        if bg is not None:
            code = [Segment(t, (st + bg) if st else bg, c) for t, st, c in code]
        segs.extend(code)
        strip = Strip(segs).crop_extend(0, width, bg)
        self._cache[ln] = (key, strip)
        return strip

    def _header(self, width: int) -> Strip:
        key = ("header", width)
        hit = self._cache.get(0)
        if hit is not None and hit[0] == key:
            return hit[1]
        head = " ".join(f"{name:>{w}}" for name, w in GUTTER) + "│"
        legend = ("  exec: warp instructions · eff: SIMT efficiency · conf: bank conflicts · "
                  "ser: atomic serialization · san: sanitizer findings")
        st = _style("bold #d0d0d0 on #303030")
        strip = Strip([Segment(head, st), Segment(legend, _style("#8a8a8a on #303030"))]).crop_extend(
            0, width, _style("on #303030"))
        self._cache[0] = (key, strip)
        return strip

    def _code_segments(self, ln: int, sx: int) -> list:
        segs = self._code_cache.get(ln)
        if segs is None:
            segs = list(self._lines[ln - 1].render(self.app.console))
            segs = [s for s in segs if s.text != "\n"]
            self._code_cache[ln] = segs
        if sx:
            return list(Strip(segs).crop(sx, 10_000))
        return segs

    def on_resize(self) -> None:
        self._cache.clear()
