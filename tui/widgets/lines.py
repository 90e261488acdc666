"""Base of the panes that redraw at every step: lines of (text, style) runs drawn through
Textual's line API as ready-made strips, which keeps a step of a 1024-thread block well
under the 50 ms budget (a rich ``Text`` of a thousand spans costs several times more).

A subclass implements ``build(width, height) -> list[list[tuple[str, str]]]``; the
lines are rebuilt when the frame changes or the widget is resized, never per line.
"""
from __future__ import annotations

from functools import lru_cache

from rich.segment import Segment
from rich.style import Style
from textual.reactive import reactive
from textual.strip import Strip
from textual.widget import Widget

Run = tuple[str, str]


@lru_cache(maxsize=1024)
def style(spec: str) -> Style | None:
    return Style.parse(spec) if spec else None


def cell_len_ascii(text: str) -> int:
    return len(text)


class LinesWidget(Widget):
    frame = reactive(None, always_update=True, layout=False)

    def __init__(self, **kw) -> None:
        super().__init__(**kw)
        self._strip_cache: list[Strip] | None = None
        self._built_for = None

    def build(self, width: int, height: int) -> list[list[Run]]:  # pragma: no cover
        raise NotImplementedError

    def watch_frame(self, _f) -> None:
        self._strip_cache = None
        self.refresh()

    def on_resize(self) -> None:
        self._strip_cache = None
        self.refresh()

    def _strips(self) -> list[Strip]:
        w, h = self.size.width, self.size.height
        if self._strip_cache is None or self._built_for != (w, h):
            rows = self.build(max(w, 1), max(h, 1))
            strips = []
            for runs in rows[:h]:
                segs = [Segment(text, style(st)) for text, st in runs if text]
                strips.append(Strip(segs).crop_extend(0, w, None))
            self._strip_cache = strips
            self._built_for = (w, h)
        return self._strip_cache

    def render_line(self, y: int) -> Strip:
        lines = self._strips()
        if y < len(lines):
            return lines[y]
        return Strip.blank(self.size.width)

    # helpers for subclasses -------------------------------------------------
    @staticmethod
    def wrap_runs(runs: list[Run], width: int) -> list[list[Run]]:
        """Word-wrap one long line of runs into lines of at most ``width`` cells."""
        width = max(width, 8)
        words: list[Run] = []
        for text, st in runs:
            for i, w in enumerate(text.split(" ")):
                if i:
                    words.append((" ", st))
                if w:
                    words.append((w, st))
        out: list[list[Run]] = [[]]
        used = 0
        for w, st in words:
            if w == " ":
                if used and used < width:
                    out[-1].append((w, st))
                    used += 1
                continue
            if used + len(w) > width and used:
                out.append([])
                used = 0
            while len(w) > width:
                out[-1].append((w[:width], st))
                out.append([])
                w = w[width:]
            out[-1].append((w, st))
            used += len(w)
        return out


class Runs:
    """Builds lines of runs with a ``rich.text.Text``-like ``append`` ('\\n' starts a line)."""

    def __init__(self) -> None:
        self.lines: list[list[Run]] = [[]]

    def append(self, text: str, style: str | None = "") -> "Runs":
        parts = str(text).split("\n")
        for i, p in enumerate(parts):
            if i:
                self.lines.append([])
            if p:
                self.lines[-1].append((p, style or ""))
        return self

    def __len__(self) -> int:
        return sum(len(t) for t, _ in self.lines[-1])
