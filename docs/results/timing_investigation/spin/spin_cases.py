"""The lane patterns of spin_mb.py (numpy only): satom/'s ten patterns of 32 lanes' words,
one pattern a trip, and one more, ``stride2_random512``: 32 lanes on 512 keys of 8-byte
structs (a float at every other word: 16 banks), probe/groupby-aos-dyn's pattern."""
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "satom"))
import satom_cases  # noqa: E402


def cases() -> dict:
    out = satom_cases.cases()
    rng = np.random.default_rng(1)
    out["stride2_random512"] = satom_cases._table(lambda t: 2 * rng.integers(0, 512, 32))
    return out
