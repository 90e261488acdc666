"""The lane patterns of satom_mb.py (numpy only, so tests can build them without a GPU):
name -> 64 patterns of 32 lanes' words, one pattern a trip."""
import numpy as np

LANE = np.arange(32)


def _table(fn):
    return np.concatenate([fn(t) for t in range(64)]).astype(np.int32)


def cases() -> dict:
    rng = np.random.default_rng(0)
    out = {"distinct": _table(lambda t: LANE)}
    for k in (2, 4, 8, 16, 32):        # k lanes in a bank, on k different words
        out[f"bank{k}"] = _table(lambda t, k=k: (LANE % (32 // k)) + 32 * (LANE // (32 // k)))
    out["same"] = _table(lambda t: np.zeros(32, int))
    out["pairs"] = _table(lambda t: LANE // 2)
    out["random256"] = _table(lambda t: rng.integers(0, 256, 32))
    out["random1024"] = _table(lambda t: rng.integers(0, 1024, 32))
    return out
