"""math5.cu (session 68: the math functions simt added, and __match_all_sync) on the
present GPU: per function, the latency of one step of a dependent chain (one warp) and the
sub-partition cycles a warp-step takes at full occupancy of independent chains; the
baseline m_fma (x * y + c, one FFMA) is subtracted to give what the function costs beyond
one instruction (as math4.py).  Each row names the machine.OP_COST key it measures.  From
the repository root on the device (run.sh):
python docs/results/timing_investigation/math5/math5.py > $OUT/math5_<gpu>.jsonl"""
import json
from pathlib import Path

import numpy as np
import cupy as cp

SMS = cp.cuda.Device().attributes["MultiProcessorCount"]
mod = cp.RawModule(code=(Path(__file__).parent / "math5.cu").read_text(), options=("--std=c++17",))
ev0, ev1 = cp.cuda.Event(), cp.cuda.Event()


def timed(fn, reps=5):
    fn()
    cp.cuda.Device().synchronize()
    best = None
    for _ in range(reps):
        ev0.record(); fn(); ev1.record(); ev1.synchronize()
        ms = cp.cuda.get_elapsed_time(ev0, ev1)
        best = ms if best is None else min(best, ms)
    return best


F, D = np.float32, np.float64
# (kernel, type, y, machine.OP_COST key)
CH = [("m_fma", F, 0.999, None), ("m_hypotf", F, 0, "m_hypot_f4"),
      ("m_nextafterf", F, 0, "m_nextafter_f4"), ("m_logbf", F, 0, "m_logb_f4"),
      ("m_ilogbf", F, 0, "m_ilogb_f4"), ("m_rcbrtf", F, 0, "m_rcbrt_f4"),
      ("m_frsqrt_rn", F, 0, "m_frsqrt_rn_f4"), ("m_rhypotf", F, 0, "m_rhypot_f4"),
      ("m_norm3df", F, 0, "m_norm3d_f4"), ("m_rnorm3df", F, 0, "m_rnorm3d_f4"),
      ("m_norm4df", F, 0, "m_norm4d_f4"), ("m_rnorm4df", F, 0, "m_rnorm4d_f4"),
      ("m_normf", F, 0, "m_norm_f4"), ("m_rnormf", F, 0, "m_rnorm_f4"),
      ("m_remquof", F, 0, "m_remquo_f4"), ("m_j0f", F, 0, "m_j0_f4"), ("m_j1f", F, 0, "m_j1_f4"),
      ("m_y0f", F, 0, "m_y0_f4"), ("m_y1f", F, 0, "m_y1_f4"), ("m_jnf", F, 0, "m_jn_f4"),
      ("m_ynf", F, 0, "m_yn_f4"), ("m_i0f", F, 0, "m_cyl_bessel_i0_f4"),
      ("m_i1f", F, 0, "m_cyl_bessel_i1_f4"), ("m_erfcxf", F, 0, "m_erfcx_f4"),
      ("m_match_all", F, 0, "match_all"),
      ("m_dfma", D, 0.999, None), ("m_nextafter", D, 0, "m_nextafter_f8"), ("m_logb", D, 0, "m_logb_f8"),
      ("m_ilogb", D, 0, "m_ilogb_f8"), ("m_rcbrt", D, 0, "m_rcbrt_f8"), ("m_rhypot", D, 0, "m_rhypot_f8"),
      ("m_norm3d", D, 0, "m_norm3d_f8"), ("m_rnorm3d", D, 0, "m_rnorm3d_f8"),
      ("m_norm4d", D, 0, "m_norm4d_f8"), ("m_rnorm4d", D, 0, "m_rnorm4d_f8"),
      ("m_norm", D, 0, "m_norm_f8"), ("m_rnorm", D, 0, "m_rnorm_f8"), ("m_remquo", D, 0, "m_remquo_f8"),
      ("m_j0", D, 0, "m_j0_f8"), ("m_j1", D, 0, "m_j1_f8"), ("m_y0", D, 0, "m_y0_f8"),
      ("m_y1", D, 0, "m_y1_f8"), ("m_jn", D, 0, "m_jn_f8"), ("m_yn", D, 0, "m_yn_f8"),
      ("m_i0", D, 0, "m_cyl_bessel_i0_f8"), ("m_i1", D, 0, "m_cyl_bessel_i1_f8"),
      ("m_erfcx", D, 0, "m_erfcx_f8")]
BPS = 4          # blocks of 256 per SM in the throughput runs (32 warps per SM)
base = {}
print(json.dumps({"device": cp.cuda.runtime.getDeviceProperties(0)["name"].decode()}), flush=True)
for name, dt, y, key in CH:
    f = mod.get_function(name)
    out = cp.zeros(SMS * BPS, dt)
    cyc = cp.zeros(SMS * BPS, cp.int64)
    it = 4096
    timed(lambda: f((1,), (32,), (out, cyc, np.int32(it), dt(y))))
    lat = float(cyc[0].get()) / it
    itt = 1024
    mst = timed(lambda: f((SMS * BPS,), (256,), (out, cyc, np.int32(itt), dt(y))))
    c = cyc.get().astype(float)
    cost = c.mean() * 4 / (BPS * 8 * 4 * itt)
    if name in ("m_fma", "m_dfma"):
        base[dt] = (lat, cost)
    print(json.dumps({"bench": name, "op_cost": key, "regs": f.num_regs,
                      "latency_cycles_per_step": round(lat, 2),
                      "smsp_cycles_per_warp_step": round(cost, 3),
                      "beyond_fma_latency": round(lat - base[F][0], 2),
                      "beyond_fma_issue": round(cost - base[F][1], 3), "throughput_ms": round(mst, 4)}),
          flush=True)
