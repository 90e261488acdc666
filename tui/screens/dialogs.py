"""Small modal dialogs of the kernel screen: go to step N, choose the variable shown in
the lanes, restart with another seed or scheduling policy."""
from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, OptionList, RadioButton, RadioSet, Static
from textual.widgets.option_list import Option

from tui.session import POLICIES


class Dialog(ModalScreen):
    """A modal that answers once: keys typed fast can submit twice, and a second
    ``dismiss`` would pop the screen underneath (the kernel screen)."""

    _answered = False

    def finish(self, result=None) -> None:
        if self._answered or not self.is_current:
            return
        self._answered = True
        self.dismiss(result)

    def action_cancel(self) -> None:
        self.finish(None)


class GotoDialog(Dialog):
    """Time travel: the state after step N (earlier steps replay from snapshots)."""

    BINDINGS = [Binding("escape", "cancel", "cancel")]

    def __init__(self, current: int) -> None:
        super().__init__()
        self.current = current

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(f"Go to step (now {self.current:,}; 0 is before the first instruction)",
                        classes="dialog-title")
            yield Input(placeholder="step number", type="integer", id="step")
            yield Label("enter: go   esc: cancel", classes="dialog-help")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        try:
            self.finish(max(0, int(text)))
        except ValueError:
            self.notify("type a step number", severity="warning")


class VariableDialog(Dialog):
    """Choose the variable whose per-lane value the warp grid shows."""

    BINDINGS = [Binding("escape", "cancel", "cancel")]

    def __init__(self, names: list[str], current: str | None) -> None:
        super().__init__()
        self.names = names
        self.current = current

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label("Show which variable in the lanes?", classes="dialog-title")
            yield OptionList(*[Option(n, id=n) for n in self.names], id="vars")
            yield Label("enter: choose   esc: cancel", classes="dialog-help")

    def on_mount(self) -> None:
        ol = self.query_one(OptionList)
        if self.current in self.names:
            ol.highlighted = self.names.index(self.current)
        ol.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.finish(event.option.id)


class RestartDialog(Dialog):
    """Restart the launch with another seed and/or scheduling policy."""

    BINDINGS = [Binding("escape", "cancel", "cancel")]

    def __init__(self, seed: int, policy: str) -> None:
        super().__init__()
        self.seed = seed
        self.policy = policy

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label("Restart the launch (memory as before it)", classes="dialog-title")
            with Horizontal(classes="dialog-row"):
                yield Label("seed ", classes="dialog-label")
                yield Input(str(self.seed + 1), type="integer", id="seed")
            with RadioSet(id="policy"):
                for p in POLICIES:
                    yield RadioButton(p, value=(p == self.policy), id=p.replace("-", "_"))
            yield Static("lockstep: warps at one instruction run together · random: one random "
                         "warp per step (exposes races) · round-robin: warps in turn",
                         classes="dialog-help")
            with Horizontal(classes="dialog-row"):
                yield Button("Restart", variant="primary", id="ok")
                yield Button("Cancel", id="cancel")

    def on_mount(self) -> None:
        self.query_one("#seed", Input).focus()

    def _result(self) -> tuple[int, str] | None:
        try:
            seed = int(self.query_one("#seed", Input).value.strip() or "0")
        except ValueError:
            self.notify("the seed must be an integer >= 0", severity="warning")
            return None
        rs = self.query_one(RadioSet)
        btn = rs.pressed_button
        policy = str(btn.label) if btn is not None else self.policy
        return max(0, seed), policy

    def on_input_submitted(self, event: Input.Submitted) -> None:
        r = self._result()
        if r is not None:
            self.finish(r)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "ok":
            r = self._result()
            if r is not None:
                self.finish(r)
        else:
            self.finish(None)

