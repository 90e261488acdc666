"""Global accesses: the 32-byte sectors a warp instruction touches, and whether the
access is coalesced (as few sectors as the bytes it moves need)."""
from __future__ import annotations

from collections import defaultdict

from tui.widgets.lines import LinesWidget, Runs

from tui import fmt


def sector_lanes(acc: dict) -> dict[int, list[int]]:
    size = int(acc.get("size", 4))
    out: dict[int, list[int]] = defaultdict(list)
    for lane, a in zip(acc.get("lanes", ()), acc.get("addresses", ())):
        for s in range(a // 32, (a + size - 1) // 32 + 1):
            out[s].append(lane)
    return dict(sorted(out.items()))


class SectorsView(LinesWidget):
    DEFAULT_CSS = """
    SectorsView { height: 1fr; text-wrap: nowrap; text-overflow: clip; }
    """


    def build(self, width: int, height: int) -> list:
        f = self.frame
        t = Runs()
        width = max(width, 40)
        height = max(height, 2)
        ev = f.last_global if f is not None else None
        if ev is None:
            t.append("No global-memory access yet. ", style="bold")
            t.append("This pane shows each global load, store or atomic: the 32-byte sectors "
                     "it touches and whether the warp's access is coalesced.", style="dim")
            return self.wrap_runs(t.lines[0], width)
        acc = ev.access
        secs = sector_lanes(acc)
        n = int(acc.get("n_sectors", len(secs)))
        nl = len(acc.get("lanes", ()))
        size = int(acc.get("size", 4))
        ideal = int(acc.get("ideal_sectors", max(1, -(-nl * size // 32))))
        now = f.event is not None and f.event.index == ev.index
        t.append("this step" if now else f"step {ev.index}", style="bold #ffd75f" if now else "bold")
        kind = {"ld": "load", "st": "store", "atom": "atomic", "red": "atomic (reduction)"}.get(acc["kind"], acc["kind"])
        t.append(f"  {ev.text} (global {kind})  block {ev.block} warp {ev.warp}  L{ev.line}\n")
        t.append(f"{nl} lane{'s' if nl != 1 else ''} × {size} B → {n} sector{'s' if n != 1 else ''} "
                 f"of 32 B (ideal {ideal}): ", style="bold")
        if n <= ideal:
            t.append("coalesced", style="bold #5fd787")
        else:
            t.append(f"uncoalesced, {n / ideal:.1f}x the sectors", style="bold #ff5f5f")
        names = f.names
        rows = height - 2
        items = list(secs.items())
        shown = items if len(items) <= rows else items[: max(rows - 1, 0)]
        bar_max = 32
        for s, lanes in shown:
            addr = s * 32
            nm = names.global_name(addr) if names is not None else f"0x{addr:x}"
            # name the first element any lane touches inside the sector
            first = min((a for a in acc.get("addresses", ()) if a // 32 == s), default=addr)
            if names is not None:
                nm = names.global_name(first, size)
            t.append("\n")
            t.append(f"{nm[:18]:<18} ", style="bold")
            k = len(set(lanes))
            t.append("█" * min(k, bar_max), style="#5fafff")
            t.append(" " * (bar_max - min(k, bar_max)))
            t.append(f" {k:>2} lane{'s' if k != 1 else ' '} [{fmt.ranges(set(lanes))}]", style="#8a8a8a")
        if len(shown) < len(items):
            t.append(f"\n… {len(items) - len(shown)} more sectors", style="dim")
        return t.lines
