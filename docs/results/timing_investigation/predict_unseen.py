"""Predictions for one family of probes (kernels_cuda/timing_probes.py) on the H100 and
the H200, as JSON: what each unseen family's predicted.json holds, written before the
family was first run on a GPU.  Here, no GPU:
python docs/results/timing_investigation/predict_unseen.py probe-unseen2 > docs/results/timing_investigation/unseen2/predicted.json
(unseen2, unseen3 and unseen4 were written by copies of this script, one per folder, at
the commits their READMEs name.)  ``--save FILE`` also pickles the emulated launches, keyed
(id, n), for repredict.py's ``--load`` once the family has been measured."""
import json
import pickle
import sys
import time
from simt import timing
from kernels_cuda import timing_check, timing_probes


def predict_one(p, profs: dict) -> tuple[dict, list]:
    """Probe p's entry (predicted ms and bound on each GPU of ``profs``, emulate_s) and its
    emulated launches."""
    t0 = time.perf_counter()
    launches = timing_check.emulate(p, p.n)
    s = time.perf_counter() - t0
    out = {g: {"predicted_ms": round(sum(timing.predict_result(r, pr).ms for r in launches), 5),
               "bound": timing.predict_result(launches[0], pr).bound}
           for g, pr in profs.items()}
    out["emulate_s"] = round(s, 1)
    return out, launches


def main(family: str, save: str | None = None) -> dict:
    out, runs = {}, {}
    profs = {g: timing.load_profile(g) for g in ("h100", "h200")}
    for p in timing_probes.entries():
        if p.family != family:
            continue
        out[p.id], runs[(p.id, int(p.n))] = predict_one(p, profs)
        print(p.id, out[p.id], file=sys.stderr, flush=True)
    if save:
        with open(save, "wb") as f:
            pickle.dump(runs, f)
    return out


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1], sys.argv[sys.argv.index("--save") + 1] if "--save" in sys.argv else None),
                     indent=1))
