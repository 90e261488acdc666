"""The timeline: which launch, the step number, what the last warp instruction did,
and a progress bar while a long emulation (run to a barrier or the end, a jump in time,
a restart) works in the background."""
from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Label, ProgressBar

from tui import fmt
from tui.frame import Frame


def describe_step(f: Frame) -> Text:
    t = Text(no_wrap=True, overflow="ellipsis")
    t.append(f"step {f.step:,}", style="bold #ffd75f")
    if f.error is not None:
        t.append("  stopped: ", style="bold #ff5f5f")
        t.append(str(f.error), style="#ff8787")
        return t
    ev = f.event
    if ev is None:
        t.append("  ready: s or → runs one warp instruction, ? lists the keys", style="dim")
        return t
    t.append(f"  L{ev.line} ", style="bold")
    t.append(f"{ev.text}", style="#87d7ff")
    t.append(f"  block {ev.block} warp {ev.warp}  ")
    n = fmt.popcount(ev.active_mask)
    t.append(f"{n}/32 lanes", style="#5fd787" if n == 32 else "#d7af5f")
    br = ev.branch
    if br:
        if br.get("diverged"):
            t.append(f"  diverged: {fmt.popcount(br['taken'])} take the branch, "
                     f"{fmt.popcount(br['not_taken'])} do not", style="bold #ffaf00")
        else:
            t.append("  branch: uniform", style="dim")
    acc = ev.access
    if acc:
        if acc["space"] == "shared" and "wavefronts" in acc:
            w, i = acc["wavefronts"], acc.get("ideal", 1)
            t.append(f"  shared {w} wavefront{'s' if w != 1 else ''}",
                     style="bold #ff5f5f" if w > i else "#5fd787")
        elif acc["space"] == "global" and "n_sectors" in acc:
            t.append(f"  {acc['n_sectors']} sectors", style="#5fafff")
        if acc.get("groups") is not None:
            s = acc.get("steps", 1)
            t.append(f"  atomic x{s}", style="bold #ffaf00" if s > 1 else "#5fd787")
    if f.done:
        t.append("  launch finished", style="bold #5fd787")
    return t


class Line(Widget):
    """One line of text; updating it never asks for a new layout (unlike Static)."""

    DEFAULT_CSS = "Line { height: 1; text-wrap: nowrap; text-overflow: ellipsis; }"
    text: reactive[Text] = reactive(Text, layout=False)

    def update(self, text: Text) -> None:
        self.text = text

    def render(self) -> Text:
        return self.text


class StepBar(Widget):
    DEFAULT_CSS = """
    StepBar { height: 2; background: $panel; }
    StepBar #where { height: 1; }
    StepBar #now { height: 1; }
    StepBar #busy { height: 1; display: none; }
    StepBar.-busy #now { display: none; }
    StepBar.-busy #busy { display: block; }
    StepBar #busy Label { width: auto; margin-right: 1; }
    StepBar #busy ProgressBar { width: 1fr; }
    """

    frame: reactive[Frame | None] = reactive(None, always_update=True, layout=False)
    where: reactive[str] = reactive("")

    def compose(self) -> ComposeResult:
        yield Line(id="where")
        yield Line(id="now")
        with Horizontal(id="busy"):
            yield Label("", id="busy-label")
            yield ProgressBar(total=None, show_eta=False, id="progress")

    def watch_where(self, text: str) -> None:
        if self.is_mounted:
            self.query_one("#where", Line).update(Text.from_markup(text))

    def watch_frame(self, f: Frame | None) -> None:
        if f is None or not self.is_mounted:
            return
        self.query_one("#now", Line).update(describe_step(f))

    def on_mount(self) -> None:
        self.watch_where(self.where)
        if self.frame is not None:
            self.watch_frame(self.frame)

    def start_busy(self, label: str, total: float | None = None) -> None:
        self.add_class("-busy")
        self.query_one("#busy-label", Label).update(label)
        self.query_one("#progress", ProgressBar).update(total=total, progress=0)

    def set_progress(self, done: float, total: float | None) -> None:
        self.query_one("#progress", ProgressBar).update(total=total, progress=done)

    def stop_busy(self) -> None:
        self.remove_class("-busy")
