"""Sanitizer findings (racecheck, memcheck, synccheck, initcheck) and a launch error;
choosing one jumps the source view to its line."""
from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from tui.frame import Frame


def finding_dict(f) -> dict:
    return f.as_dict() if hasattr(f, "as_dict") else dict(f)


class FindingsList(OptionList):
    DEFAULT_CSS = """
    FindingsList { height: 1fr; }
    """

    class Jump(Message):
        """Show source line ``line``."""

        def __init__(self, line: int) -> None:
            super().__init__()
            self.line = line

    frame: reactive[Frame | None] = reactive(None, always_update=True, layout=False)

    def __init__(self, **kw) -> None:
        super().__init__(**kw)
        self._shown_key = None
        self._jump_lines: list[int | None] = []

    def watch_frame(self, f: Frame | None) -> None:
        if f is None:
            return
        items = [finding_dict(x) for x in f.findings]
        err = f.error
        key = (tuple((d.get("tool"), d.get("kind"), d.get("line"), d.get("count")) for d in items),
               str(err) if err else None, f.done)
        if key == self._shown_key:
            return
        self._shown_key = key
        opts = []
        self._jump_lines = []
        if err is not None:
            c = getattr(err, "coord", None)
            t = Text()
            t.append("launch stopped: ", style="bold #ff5f5f")
            t.append(str(err))
            opts.append(Option(t, id="err"))
            self._jump_lines.append(getattr(c, "line", None))
        for i, d in enumerate(items):
            if err is not None and d.get("message") == getattr(err, "message", None):
                continue
            t = Text()
            sev = str(d.get("severity", "error"))
            t.append(f"{d.get('tool')}", style="bold #ff5f5f" if sev == "error" else "bold #ffaf00")
            t.append(f" {d.get('kind')}", style="bold")
            ln = d.get("line")
            where = f" at {Path(str(d.get('file') or '')).name}:{ln}" if ln else ""
            t.append(where, style="#5fafff")
            if d.get("line2"):
                t.append(f" and line {d['line2']}", style="#5fafff")
            cnt = int(d.get("count") or 1)
            if cnt > 1:
                t.append(f" [{cnt:,} {'hazards' if d.get('tool') == 'racecheck' else 'times'}]",
                         style="#ffaf00")
            t.append(f"\n  {d.get('message', '')}", style="")
            opts.append(Option(t, id=f"f{i}"))
            self._jump_lines.append(ln)
        if not opts:
            msg = ("no findings: racecheck, memcheck, synccheck and initcheck found nothing"
                   + (" in the whole launch" if f.done else " so far"))
            opts.append(Option(Text(msg, style="#5fd787"), id="none", disabled=True))
            self._jump_lines.append(None)
        highlighted = self.highlighted
        self.set_options(opts)
        if highlighted is not None and highlighted < len(opts):
            self.highlighted = highlighted

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        i = event.option_index
        if 0 <= i < len(self._jump_lines) and self._jump_lines[i]:
            self.post_message(self.Jump(int(self._jump_lines[i])))
