"""The catalog: families and their variants, the seed each comes from, a one-line title
and, for the highlighted one, the paragraph that says what to watch for."""
from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Footer, Header, OptionList, Static
from textual.widgets.option_list import Option

DEFAULT_ID = "histogram/shared-local"


def entry_line(e) -> Text:
    t = Text(no_wrap=True, overflow="ellipsis")
    t.append(f"  {e.variant:<22}", style="bold")
    t.append(f" {e.seed:>5}  ", style="#8a8a8a")
    t.append(e.title)
    flags = []
    if not e.expect_correct:
        flags.append("seed bug")
    if e.racy:
        flags.append("racy")
    if flags:
        t.append(f"  [{', '.join(flags)}]", style="bold #ff8787")
    return t


def families(entries) -> dict:
    """Entries grouped by family, families in order of first appearance (as `simt list`)."""
    out: dict = {}
    for e in entries:
        out.setdefault(e.family, []).append(e)
    return out


class CatalogScreen(Screen):
    BINDINGS = [
        Binding("enter", "open", "open", show=True),
        Binding("m", "compare", "compare family"),
        Binding("q", "quit", "quit"),
    ]

    def __init__(self, select: str | None = DEFAULT_ID, options=None) -> None:
        super().__init__()
        self.select = select
        self.options = options

    def compose(self) -> ComposeResult:
        from kernels_cuda import catalog

        yield Header()
        yield Static(Text.assemble(
            ("Pick a kernel to watch warp by warp", "bold"),
            ("  (seed: where it comes from; [seed bug]: kept as written, wrong)", "#8a8a8a")),
            id="intro")
        opts: list = []
        self._ids: list[str | None] = []
        for fam, members in families(catalog.entries()).items():
            opts.append(Option(Text(fam, style="bold #ffd75f"), id=f"fam:{fam}", disabled=True))
            self._ids.append(None)
            for e in members:
                opts.append(Option(entry_line(e), id=e.id))
                self._ids.append(e.id)
        yield OptionList(*opts, id="entries")
        yield Static(id="explain")
        yield Footer()

    def on_mount(self) -> None:
        self.app.sub_title = "catalog"
        ol = self.query_one("#entries", OptionList)
        sel = self.select if self.select in self._ids else next(i for i in self._ids if i)
        ol.highlighted = self._ids.index(sel)
        ol.focus()
        self._explain(sel)

    def on_screen_resume(self) -> None:
        self.app.sub_title = "catalog"

    def _explain(self, entry_id: str | None) -> None:
        if not entry_id:
            return
        from kernels_cuda import catalog

        e = catalog.get(entry_id)
        t = Text()
        t.append(e.id, style="bold")
        t.append(f"   seed {e.seed} · {e.source}: {', '.join(e.kernels)} · n={e.default_n:,} · "
                 f"block {e.block} · policy {e.policy}\n", style="#8a8a8a")
        t.append(e.explanation or e.title)
        self.query_one("#explain", Static).update(t)

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if event.option.id and not event.option.id.startswith("fam:"):
            self._explain(event.option.id)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self._open(event.option.id)

    def _current(self) -> str | None:
        ol = self.query_one("#entries", OptionList)
        i = ol.highlighted
        return self._ids[i] if i is not None and 0 <= i < len(self._ids) else None

    def action_open(self) -> None:
        self._open(self._current())

    def _open(self, entry_id: str | None) -> None:
        if not entry_id or entry_id.startswith("fam:"):
            return
        from tui.screens.kernel import KernelScreen
        from tui.session import Options

        base = self.options or getattr(self.app, "options", None) or Options()
        opts = Options(**{**base.__dict__, "kernel": None, "grid": None, "block": None,
                          "args": (), "shared_mem": 0, "launch": 0})
        self.app.push_screen(KernelScreen(entry_id, opts))

    def action_compare(self) -> None:
        entry_id = self._current()
        if not entry_id:
            return
        from kernels_cuda import catalog
        from tui.screens.compare import CompareScreen

        e = catalog.get(entry_id)
        self.app.push_screen(CompareScreen(e.family, self.options or getattr(self.app, "options", None),
                                           current=e.id))

    def action_quit(self) -> None:
        self.app.exit()
