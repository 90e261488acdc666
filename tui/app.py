"""The simt Textual application: a thin App that opens the catalog, or a kernel on top
of it.  ``make_app`` is what the ``simt`` console script and the tests call."""
from __future__ import annotations

from textual.app import App
from textual.binding import Binding

from tui.session import Options


class SimtApp(App):
    TITLE = "simt"
    SUB_TITLE = "CUDA kernels warp by warp"
    CSS_PATH = "simt.tcss"
    ENABLE_COMMAND_PALETTE = False
    BINDINGS = [Binding("t", "streams", "streams timeline")]

    def __init__(self, target: str | None = None, options: Options | None = None,
                 select: str | None = None) -> None:
        super().__init__()
        self.target = target
        self.options = options or Options()
        self.select = select

    def on_mount(self) -> None:
        from tui.screens.catalog import DEFAULT_ID, CatalogScreen

        entry_id = None if self.target is None or _is_file(self.target) else self.target
        self.push_screen(CatalogScreen(select=entry_id or self.select or DEFAULT_ID,
                                       options=self.options))
        if self.target is not None:
            from tui.screens.kernel import KernelScreen
            self.push_screen(KernelScreen(self.target, self.options))


    def action_streams(self) -> None:
        """Seed 003's stream timeline (tui/screens/streams.py); pinned when the catalog's
        highlighted entry is streams/async-pinned."""
        from tui.screens.streams import StreamsScreen

        if isinstance(self.screen, StreamsScreen):
            return
        current = getattr(self.screen, "_current", None)
        entry = current() if callable(current) else None
        self.push_screen(StreamsScreen(memory="pinned" if entry == "streams/async-pinned"
                                       else "pageable"))


def _is_file(target: str) -> bool:
    from tui.session import is_file_target
    return is_file_target(target)


def make_app(target: str | None = None, *, kernel: str | None = None, grid: str | None = None,
             block: str | None = None, shared_mem: int = 0, args=(), symbols=(), seed: int = 0,
             policy: str | None = None, n: int | None = None, sanitize: bool = True,
             step_budget: int | None = None, launch: int = 0, real: bool = False,
             select: str | None = None) -> SimtApp:
    """The app on ``target`` (a catalog id or a .cu file), or on the catalog when None.

    The keywords mirror ``simt tui``'s options; ``launch`` picks which launch of a
    catalog entry's driver to step (0 = the first)."""
    opts = Options(kernel=kernel, grid=grid, block=block, shared_mem=int(shared_mem or 0),
                   args=tuple(args or ()), symbols=tuple(symbols or ()), seed=int(seed or 0),
                   policy=policy, n=n,
                   sanitize=bool(sanitize), step_budget=step_budget, launch=int(launch or 0),
                   real=bool(real))
    return SimtApp(target, opts, select=select)
