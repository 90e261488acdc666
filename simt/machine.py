"""SIMT execution: warps of 32 lanes in lockstep, vectorized across warps.

State of a batch of resident blocks: one register file of per-lane numpy arrays, a mask
stack ``M[depth, lane]`` (the lanes active at each structured nesting level), and per
warp a program counter and a state (running, waiting at a barrier, done).

Each scheduler *step* executes one IR instruction for a group of warps that sit at the
same instruction, as one numpy operation over all their lanes.  Executing a group is
equivalent to executing its warps one after another in warp order (stores: the highest
lane wins; atomics: applied in lane order), so stepping one warp at a time
(``warp_steps=True``) gives identical results and counters.

Policies: ``lockstep`` (lowest program counter first, every 32nd step the most advanced
group, so spin-waits on other warps progress), ``random`` (seeded: one random runnable
warp per step; interleaves warps at instruction granularity to expose races),
``round-robin`` (one warp per step in rotation).

Limitations: blocks run in batches (``batch_threads`` lanes at a time), so warps of
different batches never interleave; memory is sequentially consistent (no caches, no
reordering), so fences are no-ops; ``__syncwarp`` does not check its mask.
"""
from __future__ import annotations

import functools

import numpy as np

from . import constcache, counters as C
from .ctypes_ import Scalar, Vector, sizeof
from .errors import LaunchError
from .ir import Const, Op, Reg
from .sharedfields import shared_field_groups
from .rounding import COST_KEY as ROUNDING_COST
from .simd import SIMD_CALLS
from .issue import (UNROLL, compile_time, const_pair_pcs, inorder_pcs, overlapped_pcs, shared_vector_pcs,
                    uniform_ldc_pcs, unrolled_loops, wide_products)
from .constrecord import record_loads
from .l1hits import LAT_L1, L1Table, TripSectors
from .loops import (PRAGMA_FULL, constant_trips, copied_from, counter_step, full_unrolls,
                    loop_test, loops, runtime_unroll, test_vars)
from .hoisting import hoist_blockers, remainder_only
from .licm import hoisted_loads, repeated_loads
from .localreuse import LocalReuse
from .promote import register_locals
from .ops import BINOPS, CALLS, PRINTF_CONVERSION, UNOPS, _fma, cast_value
from .spaces import GLOBAL_BASE, LOCAL_BASE, SHARED_BASE

RUN, WAIT, DONE = 0, 1, 2

# Latencies in SM cycles for the critical-path estimate (Hopper; calibrate.cu measures the
# global and issue figures: a dependent global load ~290 cycles, ~0.38 cycles of issue per
# IR instruction because the IR has more instructions than SASS).
LAT = {"issue": 0.38, "alu": 4.0, "math": 16.0, "warp": 24.0, "shared": 30.0, "local": 30.0,
       "global": 290.0, "dram": 850.0, "atom_shared": 40.0, "atom_global": 400.0, "bar": 12.0,
       "bar_per_warp": 2.0, "bar_vote": 17.0, "bar_vote_per_warp": 4.0, "vote_result": 35.0,
       "loads_in_flight": 4.0, "const": 26.0}
# const: an LDC from the constant cache.  One thread's chain j = tab[j] takes 37.7 cycles a
# step on the H200 (docs/results/timing_investigation/const/); the emulator's step is this
# plus the index's widening, scaling and base add (4 cycles each): 38
# bar + bar_per_warp x the block's warps: a __syncthreads() from the last warp's arrival
# to the release (docs/results/timing_investigation/tree/: 64 barriers in one block on
# the H100 cost 16, 20, 28, 44, 76 cycles each at 2, 4, 8, 16, 32 warps)
# bar_vote (+ bar_vote_per_warp x warps): the same for __syncthreads_count/_and/_or
# (BAR.RED), whose result reaches a register vote_result later (B2R.RESULT): one block
# looping on a vote takes 42, 59, 163 cycles a trip at 2, 8, 32 warps, 117, 129, 188 where
# the loop's exit waits for the result, and 159, 184, 298 in probe/jacobi-converge's loop
# (docs/results/timing_investigation/barred/, H100; 35 splits the two contexts' waits)
# global: a load served by L2; dram: one whose sectors no earlier instruction brought into
# L2, in a launch whose memory (and the restore of its writable buffers before each timed
# run, Launch._restored_bytes) exceeds L2 (counters.L2_BYTES).  dram is the cost of each
# further level of a chain of dependent loads streaming from DRAM at full occupancy
# (docs/results/timing_investigation/loaded/: 430 ns a level on the H200, 490 on the H100)
# loads_in_flight: outside loops, the global loads a warp keeps in flight; inside a loop,
# the trips whose loads it keeps in flight (nvcc unrolls a loop of unknown trip count by 4
# and hoists the unrolled trips' loads: cal_ilp's one load a trip gives 4, spmv/csr-scalar's
# three a dozen in its SASS; a loop whose unsigned step is known only at run time is not
# unrolled: one trip's loads, _runtime_stride; one with a constant trip count of at most 32
# is unrolled fully: all its trips' loads, loops.constant_trips).  _LOAD_CAP: the most a
# warp keeps in flight, whatever nvcc issues: from 132 blocks of 256 on the H200, 8 loads
# in flight a warp moved 1.67 TB/s, 16 1.70 and 32 1.51
# (docs/results/timing_investigation/mlp/)
_LOAD_CAP = 8
# a run-time loop nvcc unrolls keeps one trip's loads in flight where a store that may
# alias, a branch or a slow divide stands between the trips (simt.hoisting, unroll3/)
HOIST_BLOCKERS = True
# ... and where its lanes make at most 3 or 4 trips, nvcc's peeled remainder runs them one at
# a time (simt.hoisting.remainder_only; unseen238/notes.md's LCD staging loop)
REMAINDER_ONLY = True
# IR operations that nvcc expands into many SASS instructions or sends to a slow pipe:
# (latency: cycles from issue until the result is ready; issue: cycles the operation keeps
# its SM sub-partition busy beyond one instruction slot).  Measured on the H100 with
# dependent chains of the operation in one warp (latency) and four independent chains in
# 32 warps per SM (issue), against a chain of plain integer adds:
# docs/results/timing_investigation/ (micro.cu, micro2.cu; README.md there has the commands).
OP_COST = {
    # 32-bit int / or % by a value not known at compile time: the whole sequence (I2F,
    # MUFU.RCP, F2I, ~14 ALU) where a lane divides by a new value ...
    "idiv": (130.0, 30.0),
    # ... and where each lane divides by what it divided by last time (a loop-invariant
    # divisor: nvcc keeps the reciprocal and recomputes it once per unrolled trip)
    "idiv_again_s": (68.0, 18.0),    # signed
    "idiv_again_u": (57.0, 11.0),    # unsigned
    "idiv_const": (22.0, 8.0),       # by a constant other than a power of two (IMAD.HI)
    # ... unsigned, measured beside int % 7 (29.6 cycles a step, 8.1 SMSP cycles) and scaled
    # to its row: an IMAD.HI and a shift, two more for %, two more where the reciprocal
    # needs a 33rd bit (7, 10^9 + 7: _magic_add) (docs/results/timing_investigation/
    # divconst/, H200: u / 10, u % 10, u / 7, u % 7 4.2, 4.8, 5.5, 6.8 SMSP cycles a step)
    "udiv_const": (7.5, 3.1),
    "umod_const": (16.7, 3.8),
    "udiv_const_add": (15.5, 4.7),
    "umod_const_add": (24.7, 6.4),
    # the quotient beside a remainder by the same constant (loops.shared_quotients): the
    # remainder's sequence computed it, so no issue cost of its own, but it is the
    # multiply-high and the shift: their latency, not an ALU op's (digit_sum_u32's chain,
    # x /= 10u beside s += x % 10u; divconst/)
    "quotient_shared": (7.5, 0.0),
    # 64-bit / and % (docs/results/timing_investigation/div64/, H100): nvcc tests both
    # operands' high words; a lane whose operands fit in 32 bits runs the 32-bit sequence,
    # the others call a 64-bit routine, every time (no reciprocal is kept).  A warp with
    # lanes of both kinds runs both.
    "idiv64_u": (340.0, 97.0),       # unsigned, an operand of 2^32 or more: the routine
    "idiv64_s": (374.0, 109.0),      # signed (or negative)
    "idiv64_32": (171.0, 31.0),      # both operands under 2^32: the test, then 32 bits
    "idiv64_const": (38.0, 11.3),    # / by a constant (IMAD.HI.U64 and shifts)
    "imod64_const": (52.0, 15.5),    # % by a constant
    # ... where the constant's magic reciprocal needs a 65th bit (7, 2^31 - 1, 2^61 - 1:
    # nvcc adds ((x - t) >> 1) + t before the last shift; unsigned, _magic_add), H200
    # (docs/results/timing_investigation/divconst/: 24.8 SMSP cycles a step against 18.5
    # for % 10 and % (10^9 + 7), whose reciprocals fit in 64 bits)
    "idiv64_const_add": (56.5, 15.8),
    "imod64_const_add": (73.0, 21.8),
    # 64-bit integer products (docs/results/timing_investigation/mont64/, H200, one warp):
    # a step of v = v * c + d takes 17.9 cycles (IMAD.WIDE.U32, two IMADs and the carry's
    # IADD3, the add folded in), of v = __umul64hi(v, c) ^ d 39.7 (four IMAD.WIDE.U32
    # linked by carries); less the add's or xor's 4 (emulated: 18.0 and 40.0).  Their pipe's
    # half rate is issue.imad_pipe_weights's, not an issue cost here
    "imul64": (14.0, 0.0),
    "mulhi64": (36.0, 0.0),
    # curand_init's skip-ahead (simt/include/curand_kernel.h): one word of a jump matrix
    # times the XORWOW state.  cuRAND walks the matrix's 160 rows, loading (L1 hits) and
    # XORing the five words of each row whose bit some lane has set: 1,800-2,200 SASS
    # instructions a step at 65% issue (ncu, H100); a fifth of it a word.  Fitted to
    # probe/curand-init-id and curand-init-deep (docs/results/timing_investigation/unseen30/)
    "xorwow_matvec": (1800.0, 712.0),
    "fdiv": (54.0, 17.5),            # float / (IEEE): MUFU.RCP, Newton steps, FCHK
    "sqrt": (55.0, 12.0),            # sqrtf (IEEE): MUFU.RSQ and fix-ups
    # math library functions, IEEE (not --use_fast_math): a MUFU or two and a polynomial,
    # range reduction for the trigonometric ones (arguments of a few units: larger ones
    # take a slower path).  Chains f(x) + c against x * y + c, H100 (the H200 agrees):
    # docs/results/timing_investigation/math/ (costs.py)
    "m_exp_f4": (42.0, 10.1),        # expf
    "m_exp_f4_fast": (22.0, 6.8),    # __expf (FMUL + MUFU.EX2)
    "m_log_f4": (85.0, 30.4),        # logf
    "m_sin_f4": (97.0, 28.3),        # sinf
    "m_cos_f4": (102.0, 29.6),       # cosf
    "m_tan_f4": (109.0, 28.7),       # tanf
    "m_pow_f4": (276.0, 90.2),       # powf
    "m_tanh_f4": (60.0, 19.2),       # tanhf
    "m_erf_f4": (70.0, 28.9),        # erff
    "m_rsqrt_f4": (17.5, 6.4),       # rsqrtf (MUFU.RSQ)
    "m_exp_f8": (152.0, 43.0),       # exp (double)
    "m_log_f8": (291.0, 105.5),      # log (double)
    "m_sin_f8": (232.0, 64.8),       # sin (double)
    "m_sqrt_f8": (93.0, 30.3),       # sqrt (double)
    "ddiv": (125.0, 30.2),           # double / (IEEE)
    # the rest, measured in session 17 (docs/results/timing_investigation/math2/, H100):
    # without them a call cost one slot, and softplus in double (log1p(exp(x))) was
    # predicted at half its time (probe-unseen18)
    "m_cbrt_f4": (75.0, 18.8),
    "m_exp2_f4": (22.0, 7.0),
    "m_exp10_f4": (42.2, 10.3),
    "m_expm1_f4": (83.2, 27.8),
    "m_log2_f4": (93.2, 31.9),
    "m_log10_f4": (87.5, 31.0),
    "m_log1p_f4": (89.5, 25.9),
    "m_asin_f4": (93.2, 25.8),
    "m_acos_f4": (99.8, 25.8),
    "m_atan_f4": (83.8, 19.9),
    "m_sinh_f4": (101.5, 27.7),
    "m_cosh_f4": (95.2, 24.7),
    "m_asinh_f4": (155.5, 39.4),
    "m_acosh_f4": (141.0, 40.2),
    "m_atanh_f4": (137.8, 35.9),
    "m_erfc_f4": (123.0, 52.5),
    "m_lgamma_f4": (160.5, 33.6),
    "m_tgamma_f4": (139.6, 34.1),
    "m_atan2_f4": (133.5, 47.7),
    "m_hypot_f4": (107.8, 30.3),
    "m_fmod_f4": (154.1, 25.1),
    "m_log_f4_fast": (17.5, 6.7),
    "m_sin_f4_fast": (21.0, 6.9),
    "m_cos_f4_fast": (21.0, 6.9),
    "m_tan_f4_fast": (41.0, 23.0),
    "m_log2_f4_fast": (17.5, 6.8),
    "m_log10_f4_fast": (17.5, 6.8),
    "m_exp10_f4_fast": (22.0, 6.9),
    "m_pow_f4_fast": (40.5, 14.8),
    "m_div_f4_fast": (17.5, 6.8),
    "m_rsqrt_f8": (68.5, 21.3),
    "m_cbrt_f8": (267.0, 68.9),
    "m_exp2_f8": (158.3, 42.4),
    "m_exp10_f8": (168.5, 47.3),
    "m_expm1_f8": (226.3, 79.5),
    "m_log2_f8": (306.8, 110.2),
    "m_log10_f8": (306.8, 109.8),
    "m_log1p_f8": (322.8, 114.8),
    "m_cos_f8": (240.4, 65.8),
    "m_tan_f8": (262.3, 87.4),
    "m_asin_f8": (164.5, 41.5),
    "m_acos_f8": (193.5, 69.4),
    "m_atan_f8": (277.7, 76.7),
    "m_sinh_f8": (128.5, 42.6),
    "m_cosh_f8": (248.5, 77.2),
    "m_tanh_f8": (307.1, 90.6),
    "m_asinh_f8": (471.1, 158.7),
    "m_acosh_f8": (437.3, 148.5),
    "m_atanh_f8": (437.9, 118.5),
    "m_erf_f8": (406.8, 118.1),
    "m_erfc_f8": (531.0, 200.2),
    "m_lgamma_f8": (363.0, 109.9),
    "m_tgamma_f8": (413.3, 126.4),
    "m_pow_f8": (773.8, 267.0),
    "m_atan2_f8": (384.5, 132.7),
    "m_hypot_f8": (161.3, 58.0),
    "m_fmod_f8": (373.3, 106.1),
    # session 58 (docs/results/timing_investigation/math4/, H200; its erff check 69.0 / 30.3
    # against math.cu's 70.0 / 28.9 on the H100): the inverse error functions and the
    # normal CDF, in their central ranges (the tails take other branches)
    "m_erfinv_f4": (80.7, 18.5),
    "m_erfcinv_f4": (215.2, 31.5),
    "m_normcdf_f4": (157.7, 66.7),
    "m_normcdfinv_f4": (138.8, 34.0),
    "m_erfinv_f8": (494.5, 167.6),
    "m_erfcinv_f8": (1305.0, 227.4),
    "m_normcdf_f8": (607.5, 222.0),
    "m_normcdfinv_f8": (901.7, 250.1),
    # session 18 (docs/results/timing_investigation/math3/, H100; the H200 agrees): sinpi and
    # cospi, and the sine-cosine pairs (sincosf, __sincosf, sincospif, sincos, sincospi),
    # whose sine carries the pair's issue cycles less the cosine's slot, the cosine only
    # the latency: sincosf costs 1.2 sinf, not sinf + cosf
    "m_sinpi_f4": (71.3, 26.5),
    "m_cospi_f4": (77.8, 26.5),
    "m_sinpi_f8": (189.7, 54.5),
    "m_cospi_f8": (208.9, 54.0),
    "m_sin_f4_pair": (98.5, 32.5),
    "m_cos_f4_pair": (98.5, 0.0),
    "m_sin_f4_fast_pair": (32.0, 13.8),
    "m_cos_f4_fast_pair": (32.0, 0.0),
    "m_sinpi_f4_pair": (79.5, 32.3),
    "m_cospi_f4_pair": (79.5, 0.0),
    "m_sin_f8_pair": (216.3, 87.6),
    "m_cos_f8_pair": (216.3, 0.0),
    "m_sinpi_f8_pair": (202.3, 67.9),
    "m_cospi_f8_pair": (202.3, 0.0),
    # __match_any_sync: a pass per distinct value among the warp's lanes (k of them):
    # latency match[0] + k * match_value[0], issue k * match_value[1]
    "match": (12.0, 0.0),
    "match_value": (11.0, 8.0),
    # session 68 (docs/results/timing_investigation/math5/, H200; its hypotf check 107.6 / 30.8
    # against math/'s 107.8 / 30.3): the CUDA math API functions simt lacked (nextafter,
    # logb, ilogb, rcbrt, the norms, remquo, the Bessel functions, erfcx) and
    # __match_all_sync, compiled as CuPy compiles (with -ftz=true)
    "m_nextafter_f4": (138.6, 43.9),
    "m_logb_f4": (46.9, 12.0),
    "m_ilogb_f4": (56.1, 15.5),
    "m_rcbrt_f4": (66.4, 19.5),
    "m_frsqrt_rn_f4": (94.4, 26.5),
    "m_rhypot_f4": (56.1, 15.4),
    "m_norm3d_f4": (110.1, 35.3),
    "m_rnorm3d_f4": (58.9, 22.3),
    "m_norm4d_f4": (117.9, 42.3),
    "m_rnorm4d_f4": (68.1, 30.3),
    "m_norm_f4": (180.9, 57.8),
    "m_rnorm_f4": (129.9, 38.7),
    "m_remquo_f4": (189.6, 45.8),
    "m_j0_f4": (111.9, 33.9),
    "m_j1_f4": (134.4, 37.8),
    "m_y0_f4": (140.6, 33.6),
    "m_y1_f4": (140.1, 33.7),
    "m_jn_f4": (1231.1, 397.1),
    "m_yn_f4": (424.6, 115.9),
    "m_cyl_bessel_i0_f4": (89.1, 23.7),
    "m_cyl_bessel_i1_f4": (89.6, 24.7),
    "m_erfcx_f4": (177.9, 46.8),
    "match_all": (31.9, 6.6),
    "m_nextafter_f8": (101.9, 31.5),
    "m_logb_f8": (124.9, 22.2),
    "m_ilogb_f8": (129.4, 20.2),
    "m_rcbrt_f8": (240.1, 66.7),
    "m_rhypot_f8": (154.1, 38.8),
    "m_norm3d_f8": (194.6, 82.0),
    "m_rnorm3d_f8": (168.9, 69.1),
    "m_norm4d_f8": (218.6, 100.8),
    "m_rnorm4d_f8": (209.1, 87.4),
    "m_norm_f8": (287.4, 89.9),
    "m_rnorm_f8": (257.4, 95.1),
    "m_remquo_f8": (433.4, 136.5),
    "m_j0_f8": (202.3, 74.5),
    "m_j1_f8": (199.7, 73.5),
    "m_y0_f8": (346.9, 122.7),
    "m_y1_f8": (327.1, 116.6),
    "m_jn_f8": (578.2, 204.9),
    "m_yn_f8": (864.0, 296.9),
    "m_cyl_bessel_i0_f8": (202.9, 66.2),
    "m_cyl_bessel_i1_f8": (199.1, 68.5),
    "m_erfcx_f8": (434.6, 140.9),
}
LANES = np.arange(32)
_PC_MAX = np.iinfo(np.int64).max
BIT = (np.uint32(1) << np.arange(32, dtype=np.uint32)).astype(np.uint32)


class Batch:
    """The resident blocks being executed."""

    def __init__(self, blocks: np.ndarray, wpb: int, T: int):
        self.blocks = blocks                  # linear block ids in this batch
        self.nb = len(blocks)
        self.wpb = wpb
        self.W = self.nb * wpb
        self.T = self.W * 32


class Machine:
    def __init__(self, launch):
        self.L = launch
        self.k = launch.ir
        self.code = self.k.code
        self.cnt = launch.counters
        self.sanitizer = launch.sanitizer
        self.stdout = launch.stdout

    # ---------------------------------------------------------------- setup
    def setup(self, blocks: np.ndarray):
        L, k = self.L, self.k
        bx, by, bz = L.cfg.block.as_tuple()
        gx, gy, _ = L.cfg.grid.as_tuple()
        tpb = bx * by * bz
        wpb = -(-tpb // 32)
        b = self.b = Batch(blocks, wpb, 0)
        T = b.T
        self.T, self.W = T, b.W
        lane = np.arange(T)
        lblk = _floordiv(lane, wpb * 32)                    # block index within batch
        ltid = _mod(lane, wpb * 32)                         # linear thread id in block
        self.lane_blk = lblk
        self.lane_tid = ltid
        exists = ltid < tpb
        self.regs = [None] * len(k.regs)
        for r in k.regs:   # temporaries are written before they are read
            self.regs[r.slot] = (np.zeros if r.is_var or r.builtin else np.empty)(T, r.dtype)
        ids = blocks if L.sample_ids is None else L.sample_ids[blocks]   # ranks -> block ids
        if len(ids) and int(ids[-1]) - int(ids[0]) + 1 == len(ids):
            bid = lblk + ids[0]                             # consecutive blocks
        else:
            bid = ids[lblk]
        vals = {   # only the builtins the kernel reads are computed
            "tid.x": lambda: _mod(ltid, bx), "tid.y": lambda: _mod(_floordiv(ltid, bx), by),
            "tid.z": lambda: _floordiv(ltid, bx * by),
            "ctaid.x": lambda: _mod(bid, gx), "ctaid.y": lambda: _mod(_floordiv(bid, gx), gy),
            "ctaid.z": lambda: _floordiv(bid, gx * gy),
        }
        for r in k.regs:
            if r.builtin:
                self.regs[r.slot][:] = vals[r.builtin]()
        D = k.max_depth + 1
        self.M = np.zeros((D, T), bool)
        self.M[0] = exists
        self.pc = np.zeros(b.W, np.int64)
        self.state = np.full(b.W, RUN, np.int8)
        self.wblk = np.arange(b.W) // wpb
        self.gwarp0 = int(blocks[0]) * wpb if len(blocks) else 0   # global warp id of warp 0
        self.wsteps = np.zeros(b.W, np.int64)
        # shared / local memory of the batch
        self.S = L.shared_bytes
        self.sbuf = np.zeros(max(b.nb * self.S, 16), np.uint8)
        self.Lf = k.local_frame
        self.lbuf = np.zeros(max(T * self.Lf, 16), np.uint8)
        # when each warp touched each line of its local frame (simt.localreuse)
        self.loc = LocalReuse(b.W, self.Lf) if self.Lf else None
        # per lane: its index (gathered lanes of a whole group are a slice of it) and the
        # byte in sbuf that shared address 0 of its block maps to, less SHARED_BASE
        self.lane_ids = np.arange(T)
        self.lane_ids.flags.writeable = False
        self.lane_sh = lblk * self.S - SHARED_BASE
        self._views = {}
        self.rr_next = 0
        self.step_no = 0
        self._all_warps = None
        self._into = {}         # pc -> whether its ufunc result has the destination's dtype
        self.divisors = {}      # pc -> each lane's last divisor there, whether it has one
        # dynamic critical path: when each lane's registers are ready, each warp's issue clock
        # (per warp: a warp issues in order, so all its lanes see one ready time per register)
        self.rt = [np.zeros(b.W, np.float64) for _ in k.regs] if L.track_time else None
        self.wclock = np.zeros(b.W, np.float64)
        self.wdrain = np.zeros(b.W, np.float64)   # when its global stores and atomics are acknowledged
        self.bar_yes = np.zeros(b.W, np.int64)     # __syncthreads_count: a warp's passing threads
        self.bar_live = np.zeros(b.W, np.int64)    # ... and its threads at the barrier
        self.wpend = np.zeros(b.W, np.float64)    # when each warp's last shared store had its data
        self.pending = False                      # (whether any shared store waited yet)
        self.mem_visits = {}                      # pc -> how often each warp ran that load/atomic
        self.spin_word = {}                       # pc (-1: any) -> each warp's word at its last CAS loop there
        self.shared_hot = np.zeros(max(1, b.nb * self.S // 4))   # atomic lanes per shared word
        self.ld_depth = _load_depths(k)
        self.ld_unrolled = _unrolled_loads(k)
        self.ld_by_trip = _trip_by_trip_loads(k)
        self.cnt.unrolled_stores = _unrolled_stores(k)
        self.cnt.kept_loop = _kept_loops(k)
        self.overlapped = overlapped_pcs(k)
        self.const_pairs = const_pair_pcs(k)      # __constant__ loads nvcc may pair (LDC.64)
        self.uniform_ldc = uniform_ldc_pcs(k)     # ... and warp-uniform ones it reads with LDC
        self.const_prev = {}                      # their pc -> each lane's last word, paired
        # a __constant__ record's loads in a straight-line run (simt.constrecord): the second
        # of a possible LDC.64 -> the first, a later load of a table -> the run's first
        self.const_record_pairs, self.const_follows = record_loads(k)
        self.const_record_firsts = frozenset(self.const_record_pairs.values())
        self.const_record_heads = frozenset(self.const_follows.values())
        self.const_record_prev = {}               # the first of a pair's pc -> each lane's last word
        self.const_run_lines = {}                 # run's first load -> (warp, line)s read since
        self.shared_vec = shared_vector_pcs(k)    # shared loads nvcc may widen (LDS.64/.128)
        self.shared_prev = {}                     # their pc -> each lane's group: start, bytes
        self.shared_fields = shared_field_groups(k)   # a struct's next field -> its group's first
        self.shared_field_heads = frozenset(self.shared_fields.values())
        self.inorder = inorder_pcs(k)             # arithmetic that waits for its operands
        self.moves = register_locals(k)           # local accesses that are registers in SASS
        self.compiled = compile_time(k)           # pcs nvcc leaves nothing of (simt.issue)
        wide_products(k)                          # marks 64-bit products (OP_COST's imul64)
        # loads whose later visits read a register nvcc loaded before (simt.licm): pc ->
        # (the LOOPINIT pc where a warp's visits start again, the visits that load, and
        # None: the later ones re-read; or per visit whether it is a repeat)
        self.reuse = {q: (init, n, None) for q, (init, n) in hoisted_loads(k).items()}
        self.reuse.update({q: (init, len(rep), np.array(rep)) for q, (init, rep) in repeated_loads(k).items()
                           if q not in self.reuse})
        self.hoist_resets: dict[int, list[int]] = {}    # the LOOPINIT pc -> those loads
        for q, (init, _, _) in self.reuse.items():
            self.hoist_resets.setdefault(init, []).append(q)
        self.hoist_pcs = (set(self.reuse) | set(self.hoist_resets)) if self.reuse else None
        self.hvisits = {q: np.zeros(b.W, np.int64) for q in self.reuse}   # each warp's, this entry
        self.counting = True                      # (False while a hoisted load re-reads)
        self.preg = {}                            # their frame offset -> per warp, value ready
        ring = max([int(LAT["loads_in_flight"]), *self.ld_depth.values()])
        self.inflight = np.zeros((b.W, ring), np.float64)   # the last loads' completions
        self.ifl_ptr = np.zeros(b.W, np.int64)
        # per global load (pc): when each warp's last trip's value was ready, and whether
        # this trip's address waited for it (a walk whose next index comes from the data:
        # counters' L1 then keeps the lane's line only as its LRU share does,
        # _l1_missed_lines)
        self.ld_done = {}
        self.cas_lost: dict[int, np.ndarray] = {}   # per CAS pc, the word each lane last lost (_cas_retries)
        self.ld_dep = np.zeros(b.W, bool)
        self.l1 = L1Table() if L.track_time else None   # uniform loads' L1 hits (simt.l1hits)
        self.l1_trips = TripSectors(b.W) if L.track_time else None   # several-sector loads'
        L.counters.begin_batch(b.nb)
        if self.sanitizer is not None:
            self.sanitizer.begin_batch(self)

    def view(self, space: str, dtype: np.dtype) -> np.ndarray:
        key = (space, dtype)
        v = self._views.get(key)
        if v is None:
            buf = {"global": self.L.device.buf, "shared": self.sbuf, "local": self.lbuf}[space]
            v = buf.view(dtype)
            self._views[key] = v
        return v

    # ------------------------------------------------------------ operands
    def rd(self, o, sel):
        t = type(o)
        if t is Reg:
            return self.regs[o.slot][sel]
        if t is Const:
            return o.value
        return self.L.uniforms[o.index]

    def wr(self, r: Reg, sel, val, act, full):
        arr = self.regs[r.slot]
        if full or not r.is_var:
            arr[sel] = val
        elif isinstance(sel, slice):
            np.copyto(arr[sel], val, where=act, casting="unsafe")
        else:
            arr[sel] = np.where(act, val, arr[sel])

    def apply(self, ins, f, args, sel, act, full):
        """dst = f(*args) for a ufunc f, computed straight into the destination register
        once the instruction is known to produce its dtype (from its first execution): the
        same loop and values as computing a temporary and copying it in."""
        r = ins.dst
        ok = self._into.get(ins.pc)
        if ok and isinstance(sel, slice):
            out = self.regs[r.slot][sel]
            if full or not r.is_var:
                f(*args, out=out)
            else:
                f(*args, out=out, where=act)
            return
        val = f(*args)
        if ok is None:
            self._into[ins.pc] = (isinstance(f, np.ufunc) and f.nout == 1
                                  and getattr(val, "dtype", None) == self.regs[r.slot].dtype)
        self.wr(r, sel, val, act, full)

    # ------------------------------------------------------------ schedule
    def pick(self):
        """(pc, warp indices) of the next group, or None when the batch is done."""
        run = self.state == RUN
        if not run.any():
            if (self.state == WAIT).any():
                self.release(force_check=True)
                run = self.state == RUN
                if not run.any():
                    return None
            else:
                return None
        pol = self.L.policy
        if pol == "lockstep":
            self.step_no += 1
            pc = self.pc
            if run.all():               # no warp waits or is done: no masking needed
                lo, hi = int(pc.min()), int(pc.max())
                p = hi if self.step_no % 32 == 0 else lo
                if lo == hi:            # every warp at one instruction
                    w = self._all_warps
                    if w is None or len(w) != len(pc):
                        w = self._all_warps = np.arange(len(pc))
                        w.flags.writeable = False
                else:
                    w = np.flatnonzero(pc == p)
                return p, w
            if self.step_no % 32 == 0:
                p = int(np.where(run, pc, -1).max())
            else:
                p = int(np.where(run, pc, _PC_MAX).min())
            w = np.flatnonzero(run & (pc == p))
            return p, w
        cand = np.flatnonzero(run)
        if pol == "random":
            w = int(cand[self.L.rng.integers(len(cand))])
        else:  # round-robin
            nxt = cand[cand >= self.rr_next]
            w = int(nxt[0]) if len(nxt) else int(cand[0])
            self.rr_next = w + 1
        return int(self.pc[w]), np.array([w])

    def run(self, warp_steps: bool = False, on_step=None):
        """Run the batch to completion (``on_step`` sees every executed step)."""
        budget = self.L.step_budget
        while True:
            g = self.pick()
            if g is None:
                self.finish_batch()
                return
            p, w = g
            if warp_steps and len(w) > 1:
                for one in w:
                    if self.state[one] == RUN and self.pc[one] == p:
                        self.exec(p, np.array([one]))
                        if on_step:
                            on_step(p, np.array([one]))
            else:
                self.exec(p, w)
                if on_step:
                    on_step(p, w)
            if budget and self.wsteps[w].max() > budget:
                bad = int(w[np.argmax(self.wsteps[w])])
                ins = self.code[int(self.pc[bad]) if self.pc[bad] < len(self.code) else p]
                blk = self.L.block_coords(int(self.b.blocks[self.wblk[bad]]))
                raise LaunchError(
                    f"step budget exceeded: warp {bad % self.b.wpb} of block {blk} executed more than "
                    f"{budget} instructions; a loop that never ends? (it is at line {ins.line}; "
                    "raise the limit with --step-budget)", ins.coord, tool="simt")

    def finish_batch(self):
        """The batch's warps are done: what the counters take at their end."""
        if self.loc is not None:
            self.loc.finish(self.cnt, 0)
            self.loc = None

    # ------------------------------------------------------------- execute
    def exec(self, p: int, w: np.ndarray, counted: bool = True, hoist: bool = True):
        """Run instruction ``p`` for warps ``w``; ``counted=False``: a load nvcc made once,
        before the loop (``_hoisted``), whose value is already in a register: no issue, no
        memory access counted, the value ready at once."""
        if self.hoist_pcs is not None and hoist and p in self.hoist_pcs:
            return self._hoisted(p, w)
        ins = self.code[p]
        n = len(w)
        if n == 1:
            w0 = int(w[0])
            sel = slice(w0 * 32, w0 * 32 + 32)
            wsel = slice(w0, w0 + 1)
        elif int(w[-1]) - int(w[0]) + 1 == n:
            sel = slice(int(w[0]) * 32, int(w[-1]) * 32 + 32)
            wsel = slice(int(w[0]), int(w[-1]) + 1)
        else:
            sel = (w[:, None] * 32 + LANES).ravel()
            wsel = w
        act = self.M[ins.depth][sel]
        nact = int(np.count_nonzero(act))
        nw = act.size // 32
        full = nact == act.size
        if full:
            aw = _ones(nw)
        else:
            act2 = act.reshape(-1, 32)
            aw = _rows_any(act2)
        self.wsteps[wsel] += 1
        op = ins.op
        pred = ins.info.get("predicated")
        n_on = nw if full else int(np.count_nonzero(aw))      # warps with a lane on
        if pred:
            # an if-converted instruction is issued by warps whose lanes are all off too
            n_off = nw - n_on
            if n_off:
                if not nact:
                    self.cnt.add(p, C.INST, nw)
                if op in (Op.LOAD, Op.STORE):
                    self.predicated_issue(p, ins, sel, op, n_off)
        if nact and counted:
            cnt = self.cnt
            cnt.add(p, C.INST, nw if pred else n_on)
            cnt.add(p, C.THREAD_INST, nact)
            if isinstance(wsel, slice):
                gw = slice(self.gwarp0 + wsel.start, self.gwarp0 + wsel.stop)
            else:
                gw = self.gwarp0 + wsel
            if full:
                cnt.warp_inst[gw] += 1
                cnt.warp_thread_inst[gw] += 32
            else:
                cnt.warp_inst[gw] += aw
                cnt.warp_thread_inst[gw] += _rows_count(act2)
        if self.rt is not None and nact:
            if counted and n_on < nw and not pred:
                # warps whose lanes all left the loop's trip (break, continue) walk on to
                # its end with no lane on: nvcc's code branches them there (a uniform
                # BRA), so they issue nothing and their clocks wait for no one
                ws = _warp_ids(wsel)[aw]
                a2 = act2[aw].ravel()
                self.advance_clock(ins, (ws[:, None] * 32 + LANES).ravel(), a2, bool(a2.all()), ws)
            elif counted:
                self.advance_clock(ins, sel, act, full, wsel)
            else:
                for r in (ins.dst if isinstance(ins.dst, list) else (ins.dst,)):
                    self.rt[r.slot][wsel] = self.wclock[wsel]
        jump = HANDLERS[op](self, ins, sel, act, full, aw, w, wsel) if (nact or op in _ALWAYS) else None
        if jump is None:
            self.pc[wsel] = p + 1
        elif jump is True:
            self.pc[wsel] = ins.target
        elif jump is not False:
            self.pc[wsel] = np.where(jump, ins.target, p + 1)

    def _hoisted(self, p: int, w: np.ndarray):
        """A load of ``licm.hoisted_loads`` or ``licm.repeated_loads`` (or the ``LOOPINIT``
        where a warp's visits to them start again).  A hoisted load's visits in the first
        trip of its kept loop are loads, counted; later ones read the registers nvcc
        loaded them into.  A repeated load's visits in the copies that repeat an address
        read that register; the others are loads."""
        for q in self.hoist_resets.get(p, ()):
            self.hvisits[q][w] = 0
        h = self.reuse.get(p)
        if h is None:
            return self.exec(p, w, hoist=False)
        v = self.hvisits[p]
        i = v[w]
        v[w] += 1
        again = i >= h[1] if h[2] is None else h[2][i % h[1]]
        if not again.any():
            return self.exec(p, w, hoist=False)
        if not again.all():
            self.exec(p, w[~again], hoist=False)
        self.counting = False                     # (access_counters counts nothing)
        try:
            self.exec(p, w[again], counted=False, hoist=False)
        finally:
            self.counting = True

    def predicated_issue(self, p, ins, sel, op, nw):
        """A predicated-off shared load/store still counts as a shared instruction, and
        takes a slot of the LSU pipe (a wavefront with no bank)."""
        if ins.info.get("space") == "shared":
            if p in self.shared_fields:       # part of its group's first access (sharedfields)
                self.cnt.add(p, C.INST, -nw)
                return
            self.cnt.add(p, C.SHARED_LD if op == Op.LOAD else C.SHARED_ST, nw)
            self.cnt.add(p, C.SHARED_PRED_OFF, nw)

    # ------------------------------------------------------------- timing
    def advance_clock(self, ins, sel, act, full, wsel):
        """A scoreboarded warp: ALU results flow along data dependences (the compiler hides
        their latency), memory and warp-wide instructions wait until their operands are
        ready; every instruction costs an issue slot, expensive ones (``OP_COST``) more."""
        op = ins.op
        if ins.pc in self.compiled:
            self._compiled(ins, sel, act, wsel)
            return
        rw = None
        if op not in _NO_STALL and not (op is Op.IF and ins.info.get("predicated")):
            # (an if-converted IF is no branch: the warp goes on, and the predicated
            # instructions wait for the condition instead, pred_cond)
            for a in ins.args:
                if type(a) is Reg:
                    r = self.rt[a.slot][wsel]
                    rw = r if rw is None else np.maximum(rw, r)
            cond = ins.info.get("pred_cond")
            if cond is not None:
                r = self.rt[cond.slot][wsel]
                rw = r if rw is None else np.maximum(rw, r)
        clock = self.wclock[wsel] + LAT["issue"]
        if op == Op.ATOM and C.spin_atomic(ins):
            spin = _spin_cycles(self, ins, sel, act, full, self.wblk[wsel])
            if spin is not None:
                # nvcc's CAS loop on shared memory: the warp leaves it when its last lane's
                # pass succeeds, and its result (the old value) is ready then
                done = (clock if rw is None else np.maximum(clock, rw)) + spin
                self.wclock[wsel] = done
                for r in (() if ins.dst is None else ins.dst if isinstance(ins.dst, list) else (ins.dst,)):
                    self.rt[r.slot][wsel] = done
                return
        flow = op in _DATAFLOW or (op is Op.CALL and ins.sub in FLOW_CALLS)
        if self.pending and op in _AFTER_STORES and not flow and ins.pc not in self.ld_depth:
            # (ld_depth's keys are the global loads)
            clock = np.maximum(clock, self.wpend[wsel] + LAT["issue"])
        key = _cost_key(ins)
        if key is not None:
            lat, busy = _op_cost(self, key, ins, sel, act, full)
        elif op == Op.STORE and ins.info.get("space") == "local":
            _local_store_lines(self, ins, sel, act, full)
        d = ins.dst
        if flow:
            if rw is not None and (key in _SLOW_PATH or ins.pc in self.inorder):
                # nvcc checks the operands and branches to a slow-path subroutine (FCHK, a
                # range test): the warp waits for them there, and nothing after it in the
                # program (the next loads) is scheduled above the branch; in such a loop's
                # body its arithmetic waits for its operands too (issue.inorder_pcs)
                clock = np.maximum(clock, rw)
            self.wclock[wsel] = clock if key is None else clock + busy
            if d is not None:
                start = clock if rw is None else np.maximum(clock, rw)
                t = start + (_latency(self, ins, sel, act) if key is None else lat)
                for r in (d if isinstance(d, list) else (d,)):
                    self.rt[r.slot][wsel] = t
            return
        if d is None:
            if op == Op.STORE and rw is not None and ins.info.get("space") == "shared":
                # nvcc schedules the global loads that follow a shared store above it
                # (different memory), so a store waiting for its data holds up the warp's
                # other instructions but not those loads (the two loads of
                # reduction/contiguous's blocks go out together)
                self.wclock[wsel] = clock
                self.wpend[wsel] = np.maximum(self.wpend[wsel], rw)
                self.pending = True
                return
            self.wclock[wsel] = clock if rw is None else np.maximum(clock, rw)
            if op in (Op.STORE, Op.ATOM) and ins.info.get("space") not in ("shared", "local"):
                # a block's slot frees once L2 has acknowledged its warps' stores and atomics
                self.wdrain[wsel] = np.maximum(self.wdrain[wsel], self.wclock[wsel] + LAT[
                    "global" if op == Op.STORE else "atom_global"])
            return
        if key is None:
            lat = _latency(self, ins, sel, act)
        if op == Op.LOAD and lat >= LAT["global"]:
            # nvcc unrolls loops and hoists the loads of later trips above this trip's
            # dependent ones (software pipelining), so a global load whose address waits on
            # an earlier load holds up only what uses it, not the warp; a warp keeps the
            # load's depth (_load_depths) of them outstanding: it issues once the load that
            # many loads back has returned
            ws = _warp_ids(wsel)
            ptr = self.ifl_ptr[ws]
            ring = self.inflight.shape[1]
            clock = np.maximum(clock, self.inflight[ws, (ptr - self.ld_depth[ins.pc]) % ring])
            start = clock if rw is None else np.maximum(clock, rw)
            self.inflight[ws, ptr] = start + lat
            done = self.ld_done.get(ins.pc)
            self.ld_dep[ws] = False if rw is None or done is None else rw >= done[ws]
            self.ifl_ptr[ws] = (ptr + 1) % ring
        else:
            if rw is not None:
                start = np.maximum(clock, rw)
                if ins.pc in self.overlapped:
                    # an unrolled trip's math call or shared load: the warp issues the other
                    # unrolled trips' independent work while this one waits (simt.issue)
                    clock = clock + (start - clock) / UNROLL
                else:
                    clock = start
            else:
                start = clock
        self.wclock[wsel] = clock if key is None else clock + busy
        t = start + lat
        for r in (d if isinstance(d, list) else (d,)):
            self.rt[r.slot][wsel] = t
        if op == Op.ATOM and lat >= LAT["atom_global"]:
            self.wdrain[wsel] = np.maximum(self.wdrain[wsel], t)

    def _compiled(self, ins, sel, act, wsel):
        """An instruction nvcc leaves nothing of (simt.issue.compile_time): no issue slot,
        no wait.  A value it computes is ready when its operands are (a ``__constant__``
        load nvcc makes before the loop: when its address is; before session 64 such a
        load left its register's ready time as it was); a local load or store
        nvcc makes a register move (simt.promote) has no memory latency: the load's value is
        ready when the value stored at its address was."""
        op = ins.op
        if ins.pc not in self.moves:
            d = ins.dst
            if (op in _DATAFLOW or op == Op.LOAD) and d is not None:
                t = None
                for a in ins.args:
                    if type(a) is Reg:
                        r = self.rt[a.slot][wsel]
                        t = r if t is None else np.maximum(t, r)
                for r in (d if isinstance(d, list) else (d,)):
                    self.rt[r.slot][wsel] = self.wclock[wsel] if t is None else t
            return
        a = np.asarray(self.rd(ins.args[0], sel))
        if a.ndim:
            if not act.any():
                return
            a = a[act]
        addr = int(a.flat[0])
        ready = self.preg.get(addr)
        if ins.op == Op.STORE:
            if ready is None:
                ready = self.preg[addr] = np.zeros(self.b.W, np.float64)
            v = ins.args[1]
            ready[wsel] = self.rt[v.slot][wsel] if type(v) is Reg else self.wclock[wsel]
        else:
            t = self.wclock[wsel] if ready is None else ready[wsel]
            d = ins.dst
            for r in (d if isinstance(d, list) else (d,)):
                self.rt[r.slot][wsel] = t

    # ------------------------------------------------------------- memory
    def lanes_of(self, sel, idx):
        if isinstance(sel, slice):
            return sel.start + idx
        return sel[idx]

    def translate(self, A: np.ndarray, glanes: np.ndarray, size: int, ins, kind: str,
                  lanes: slice | None = None):
        """Split addresses by space, bounds- and alignment-check them (memcheck), and return
        a list of (space, flat element index base in bytes, positions).  ``lanes``: the
        slice of lane ids that ``glanes`` equals, when it is one (a whole group)."""
        out = []
        if len(A) == 0:
            return out
        lo, hi = int(A.min()), int(A.max())
        if hi < SHARED_BASE:
            parts = [("global", None)]
        elif lo >= SHARED_BASE and hi < LOCAL_BASE:
            parts = [("shared", None)]
        elif lo >= LOCAL_BASE:
            parts = [("local", None)]
        else:
            is_glob = A < SHARED_BASE
            is_loc = A >= LOCAL_BASE
            is_sh = ~is_glob & ~is_loc
            parts = [(s, m) for s, m in (("global", is_glob), ("shared", is_sh), ("local", is_loc)) if m.any()]
        al = min(size, 16)
        pow2 = al & (al - 1) == 0
        for space, m in parts:
            pos = np.flatnonzero(m) if m is not None else None
            a = A if pos is None else A[pos]
            gl = glanes if pos is None else glanes[pos]
            a_lo, a_hi = (lo, hi) if pos is None else (int(a.min()), int(a.max()))
            if space == "global":
                starts = self.L.alloc_starts
                ends = self.L.alloc_ends
                k0 = int(np.searchsorted(starts, a_lo, side="right")) - 1
                if k0 >= 0 and a_hi + size <= ends[k0]:
                    ok = _TRUE          # the whole warp group stays inside one allocation
                else:
                    k = np.searchsorted(starts, a, side="right") - 1
                    ok = ((k >= 0) & (a + size <= ends[np.maximum(k, 0)]) if len(ends)
                          else np.zeros(a.shape, bool))         # no allocation at all
                byte = a - GLOBAL_BASE
            elif space == "shared":
                if a_lo - SHARED_BASE >= 0 and a_hi - SHARED_BASE + size <= self.S:
                    ok = _TRUE
                else:
                    off = a - SHARED_BASE
                    ok = (off >= 0) & (off + size <= self.S)
                sh = self.lane_sh[lanes] if (lanes is not None and pos is None) else self.lane_sh[gl]
                byte = sh + a
            else:
                off = a - LOCAL_BASE
                ok = (off >= 0) & (off + size <= self.Lf)
                byte = gl * self.Lf + off
            if size <= 1:
                misaligned = False
            elif pow2:                  # any address with a low bit set?
                misaligned = bool(int(np.bitwise_or.reduce(a)) & (al - 1))
            else:
                misaligned = bool(((a % al) != 0).any())
            if (ok is not _TRUE and not ok.all()) or misaligned:
                bad = np.broadcast_to(~ok, a.shape)
                mis = (a % al) != 0 if size > 1 else np.zeros(a.shape, bool)
                j = int(np.flatnonzero(bad | mis)[0])
                self.memcheck_error(ins, space, int(a[j]), int(gl[j]), size, kind,
                                    misaligned=bool(mis[j]) and not bad[j])
            out.append((space, byte, pos))
        return out

    def memcheck_error(self, ins, space, addr, lane, size, kind, misaligned=False):
        thread, block = self.thread_block(lane)
        what = {"ld": "read", "st": "write", "atom": "atomic"}[kind]
        if misaligned:
            msg = (f"Invalid __{space}__ {what} of size {size} bytes by thread {thread} in block "
                   f"{block}: address {hex(addr)} is misaligned")
        else:
            if space == "global":
                where = self.L.device.describe(addr, size)   # compute-sanitizer's wording
            elif space == "shared":
                off = addr - SHARED_BASE
                where = (f"{off - self.S + size} bytes past the end of the block's {self.S} bytes of "
                         f"shared memory" if off >= 0 else f"{-off} bytes before shared memory")
                if self.S == 0:
                    where = "the launch has no shared memory (did you pass --shared / shared_mem?)"
            else:
                where = f"outside the thread's {self.Lf}-byte local frame"
            msg = (f"Invalid __{space}__ {what} of size {size} bytes by thread {thread} in block "
                   f"{block}: address {hex(addr)} is {where}")
        raise LaunchError(msg, ins.coord, tool="memcheck", thread=thread, block=block)

    def thread_block(self, lane: int):
        L = self.L
        bx, by, _ = L.cfg.block.as_tuple()
        t = int(self.lane_tid[lane])
        blin = int(self.b.blocks[self.lane_blk[lane]])
        return (t % bx, (t // bx) % by, t // (bx * by)), L.block_coords(blin)

    def gather_addr(self, ins, sel, act, full):
        addr = self.rd(ins.args[0], sel)
        if full:
            idx = None
            A = np.broadcast_to(addr, act.shape).astype(np.int64, copy=False) if np.ndim(addr) == 0 else addr
            n = act.size
            gl = self.lane_ids[sel] if isinstance(sel, slice) else sel   # a read-only view
        else:
            idx = np.flatnonzero(act)
            A = addr[idx] if np.ndim(addr) else np.full(len(idx), addr, np.int64)
            gl = self.lanes_of(sel, idx)
            n = len(idx)
        return np.asarray(A, np.int64), idx, gl, n

    def access_counters(self, p, ins, parts, A, gl, size, kind, pre=None):
        """Per-warp shared wavefronts / global sectors for this access (``pre``: per part,
        the warp matrix and address runs an atomic already computed); none in a launch
        made with ``count_memory=False``."""
        if not self.counting or not self.L.count_memory:
            return
        cnt = self.cnt
        for j, (space, byte, pos) in enumerate(parts):
            if space == "local":
                # (a local access nvcc keeps in registers, simt.promote, touches no memory)
                if self.loc is not None and kind in ("ld", "st") and p not in self.moves:
                    mat, act, warps = _warp_matrix(A if pos is None else A[pos], gl if pos is None else gl[pos])
                    self.loc.touch(cnt, p, (mat - LOCAL_BASE) >> 2, act, warps, size, kind == "st")
                continue
            if space == "global" and ins.info.get("space") == "const":
                _const_counters(self, p, ins, A if pos is None else A[pos], gl if pos is None else gl[pos])
                continue
            a = A if pos is None else A[pos]
            g = gl if pos is None else gl[pos]
            runs = None
            if pre is not None:
                mat, act, warps, runs = pre[j]
            else:
                mat, act, warps = _warp_matrix(a, g)
            nw = len(warps)
            gwarps = self.gwarp0 + warps
            if space == "shared":
                if kind in ("atom", "red") and C.spin_atomic(ins):
                    # a float add is nvcc's CAS loop: an LDS and an ATOMS.CAST a pass, as
                    # many passes as the busiest bank has lanes (counters.spin_passes)
                    k, waves = C.spin_passes(mat - SHARED_BASE, act, size, self.wblk[warps],
                                             _spin_steady(self, p, warps, mat, act, size, True))
                    passes, w = int(round(k.sum())), int(round(waves.sum()))
                    for name, v in ((C.SHARED_ATOM, passes), (C.WAVES_ATOM, C.SPIN_CAS_WAVES * passes),
                                    (C.SHARED_LD, passes), (C.WAVES_LD, w),
                                    (C.INST, C.SPIN_PASS_INST * passes + (C.SPIN_LOOP_INST - 1) * nw)):
                        cnt.add(p, name, v)
                    continue
                if kind in ("atom", "red"):
                    # a pass through the banks per distinct word in the busiest bank: lanes
                    # on one word merge, as a load's broadcast (timing_investigation/satom/)
                    cnt.add(p, C.SHARED_ATOM, nw)
                    cnt.add(p, C.WAVES_ATOM, int(C.wavefronts(mat - SHARED_BASE, act, size)[0].sum()))
                    continue
                waves, ideal = C.wavefronts(mat - SHARED_BASE, act, size)
                ld = kind == "ld"
                head = self.shared_fields.get(p)
                if head is not None or p in self.shared_field_heads:
                    # a struct's next field after the last (simt.sharedfields): joined as
                    # below where the lanes' addresses show it; the group's first begins it
                    joined, waves, ideal = _shared_vector(self, ("field", p if head is None else head),
                                                          mat - SHARED_BASE, act, warps, size, waves, ideal,
                                                          begin=head is None)
                elif ld and p in self.shared_vec:
                    # trips that widen the previous trip's load: no instruction, and only
                    # the wavefronts the wider access adds
                    joined, waves, ideal = _shared_vector(self, p, mat - SHARED_BASE, act, warps, size,
                                                          waves, ideal)
                else:
                    joined = 0
                if joined:
                    nw -= joined
                    cnt.add(p, C.INST, -joined)
                tw = int(waves.sum())
                ti = int(ideal.sum())
                cnt.add(p, C.SHARED_LD if ld else C.SHARED_ST, nw)
                cnt.add(p, C.WAVES_LD if ld else C.WAVES_ST, tw)
                cnt.add(p, C.CONFL_LD if ld else C.CONFL_ST, tw - ti)
                cnt.add_warp(C.CONFL_LD if ld else C.CONFL_ST, gwarps, waves - ideal)
            else:
                key = None
                if cnt.first_read is not None and kind != "st":
                    # the instruction, its batch and each warp's trip through it: warps on
                    # the same trip wait on one fetch, a later trip finds the sector in L2
                    v = self.mem_visits.get(p)
                    if v is None:
                        v = self.mem_visits[p] = np.zeros(self.b.W, np.int64)
                    key = ((((self.gwarp0 << 16) | p) << 20) + v[warps])
                    v[warps] += 1
                ranks = self.b.blocks[self.wblk[warps]]         # each row's block (its rank)
                dep = None
                if self.rt is not None and kind == "ld":
                    dep = _trip_dep(self, p, warps)
                sec = cnt.global_access(mat, act, size, ranks, runs, kind,
                                        gwarps=gwarps, pc=p, dram_key=key, dep=dep)
                if cnt.fresh_rows is not None and self.rt is not None:
                    _wait_dram(self, ins, warps[cnt.fresh_rows], kind)
                elif cnt.resident_share is not None and kind == "ld" and self.rt is not None:
                    _gather_misses(self, ins, warps, a, sec)
                if self.l1 is not None:
                    _l1_hits(self, ins, warps, mat, act, size, ranks, kind, cnt.fresh_rows)
                if kind == "ld" and self.rt is not None and ins.dst is not None:
                    # when this trip's value is ready (L1 hits and DRAM waits counted)
                    d0 = ins.dst[0] if isinstance(ins.dst, list) else ins.dst
                    done = self.ld_done.get(p)
                    if done is None:
                        done = self.ld_done[p] = np.full(self.b.W, np.inf)
                    done[warps] = self.rt[d0.slot][warps]
                req, sct = {"ld": (C.REQ_LD, C.SECT_LD), "st": (C.REQ_ST, C.SECT_ST),
                            "atom": (C.REQ_ATOM, C.SECT_ATOM), "red": (C.REQ_RED, C.SECT_RED)}[kind]
                cnt.add(p, req, nw)
                replays = 0             # transactions replaying an address of their request
                rn = None
                if kind in ("atom", "red") and ins.info.get("aggregated"):
                    # nvcc reduces over the warp and one lane does the atomic
                    sec = np.ones(nw, np.int64)
                elif kind in ("atom", "red"):
                    # Nsight counts an atomic's sectors as, per sector, the most lanes on one
                    # address in it (same-address lanes replay; different words do not),
                    # plus the replays of L1 bank clashes between lines of one set
                    distinct = int(sec.sum())
                    rn = runs if runs is not None else C.Runs(mat, act)
                    sec = rn.atomic_sectors(size, self.L.alloc_starts)
                    replays = int(sec.sum()) - distinct
                if kind == "ld":
                    if size <= 2:       # several warps' elements in one line (simt.racy)
                        cnt.stream_load(mat, act, ranks, gwarps, p)
                else:
                    lo, hi = int(a.min()), int(a.max())
                    alloc = int(np.searchsorted(self.L.alloc_starts, lo, side="right")) - 1
                    if kind == "st" and hi - lo < C.L2_SLICES * C.SLICE_SPAN:
                        cnt.plain_store(alloc, int(sec.sum()), mat, act, ranks, gwarps)
                    spans = None
                    if kind != "st":        # where each warp's atomics land (block_spans)
                        bids = ranks if self.L.sample_ids is None else self.L.sample_ids[ranks]
                        spans = (gwarps, bids, *C.warp_spans(mat, act, size, None if rn is None else rn.sorted))
                        if hi - lo < C.CONCENTRATION_SPAN:
                            cnt.atomic_blocks(alloc, int(self.L.alloc_starts[alloc]), mat, act, sec)
                        cnt.atomic_slices(alloc, mat, act, sec, bids, ranks)
                    cnt.l2_transactions(alloc, int(sec.sum()), lo, hi, replays,
                                        cas=kind == "atom" and ins.sub == "cas", plain=kind == "st",
                                        clocks=self.wclock[warps] if self.rt is not None else None,
                                        weights=sec, spans=spans)
                cnt.add(p, sct, int(sec.sum()))
                cnt.add_warp(sct, gwarps, sec)
                cnt.add_warp("simt__global_requests", gwarps, 1)

    # ------------------------------------------------------------- barriers
    def release(self, force_check=False):
        """Release every block whose live warps all wait at a barrier."""
        waiting = self.state == WAIT
        if not waiting.any():
            return
        nb = self.b.nb
        alive = self.state != DONE
        nwait = np.bincount(self.wblk[waiting], minlength=nb)
        nalive = np.bincount(self.wblk[alive], minlength=nb)
        rel = (nwait == nalive) & (nwait > 0)
        if not rel.any():
            return
        ws = np.flatnonzero(waiting & rel[self.wblk])
        pcs = self.pc[ws]
        blk_of = self.wblk[ws]
        # all warps of a block must wait at the same __syncthreads()
        first_pc = np.full(nb, -1, np.int64)
        first_pc[blk_of[::-1]] = pcs[::-1]
        diff = pcs != first_pc[blk_of]
        if diff.any():
            j = int(np.flatnonzero(diff)[0])
            b = int(blk_of[j])
            i1 = self.code[int(first_pc[b]) - 1]
            i2 = self.code[int(pcs[j]) - 1]
            blk = self.L.block_coords(int(self.b.blocks[b]))
            raise LaunchError(
                f"Barrier error: warps of block {blk} wait at different __syncthreads() "
                f"(line {i1.line} and line {i2.line}); every thread of a block must reach the same barrier",
                i2.coord, tool="synccheck", block=blk)
        self.state[ws] = RUN
        # blocks released together may wait at different barriers: each vote its own
        votes = [(ins, pcs == pc) for pc in np.unique(pcs)
                 if (ins := self.code[int(pc) - 1]).dst is not None]
        for ins, at in votes:
            self._bar_vote(ins, ws[at], blk_of[at], nb)
        if self.rt is not None:
            top = np.zeros(nb)
            np.maximum.at(top, blk_of, self.wclock[ws])
            wait = np.full(len(ws), LAT["bar"] + LAT["bar_per_warp"] * self.b.wpb)
            for _, at in votes:
                wait[at] = LAT["bar_vote"] + LAT["bar_vote_per_warp"] * self.b.wpb
            self.wclock[ws] = top[blk_of] + wait
            for ins, at in votes:
                self.rt[ins.dst.slot][ws[at]] = self.wclock[ws[at]] + LAT["vote_result"]
        if self.sanitizer is not None:
            self.sanitizer.barrier(self, np.flatnonzero(rel))


    def _bar_vote(self, ins, ws, blk_of, nb):
        """The value of ``__syncthreads_count/_and/_or`` (``ins``) for every thread of the
        released warps ``ws`` (whole blocks, all at ``ins``): the vote of their block's live
        threads."""
        yes = np.bincount(blk_of, self.bar_yes[ws], minlength=nb)
        live = np.bincount(blk_of, self.bar_live[ws], minlength=nb)
        v = {"__syncthreads_count": yes, "__syncthreads_and": yes == live,
             "__syncthreads_or": yes > 0}[ins.sub][blk_of]
        self.regs[ins.dst.slot][(ws[:, None] * 32 + LANES).ravel()] = np.repeat(v.astype(np.int32), 32)


_TRUE = np.True_
_ONES: dict[int, np.ndarray] = {}


def _ones(n: int) -> np.ndarray:
    """A read-only all-True per-warp mask of length n (cached)."""
    a = _ONES.get(n)
    if a is None:
        a = np.ones(n, bool)
        a.flags.writeable = False
        if len(_ONES) < 64:
            _ONES[n] = a
    return a


_BYTES_ONE = np.uint64(0x0101010101010101)


def _warp_ids(wsel) -> np.ndarray:
    """The warp numbers a selection (a slice of consecutive warps, or their indices) holds."""
    return np.arange(wsel.start, wsel.stop) if isinstance(wsel, slice) else wsel


def _rows_any(b2: np.ndarray) -> np.ndarray:
    """b2.any(axis=1) for a (warps, 32) bool matrix: each row read as four 8-byte words."""
    if b2.ndim != 2 or b2.shape[1] != 32 or b2.dtype != np.bool_ or not b2.flags.c_contiguous:
        return b2.any(axis=1)
    v = b2.view(np.uint64)
    return (v[:, 0] | v[:, 1] | v[:, 2] | v[:, 3]) != 0


def _rows_count(b2: np.ndarray) -> np.ndarray:
    """b2.sum(axis=1) for a (warps, 32) bool matrix."""
    if b2.ndim != 2 or b2.shape[1] != 32 or b2.dtype != np.bool_ or not b2.flags.c_contiguous:
        return b2.sum(axis=1)
    v = b2.view(np.uint64)
    c = (v[:, 0] + v[:, 1]) + (v[:, 2] + v[:, 3])    # per byte 0..4: no carries
    c = (c * _BYTES_ONE) >> np.uint64(56)            # the sum of the 8 bytes
    return c.astype(np.int64)


def _floordiv(a: np.ndarray, d: int) -> np.ndarray:
    """a // d for int arrays and d >= 1 (a shift for a power of two)."""
    if d == 1:
        return a.copy()
    return a >> (d.bit_length() - 1) if d & (d - 1) == 0 else a // d


def _mod(a: np.ndarray, d: int) -> np.ndarray:
    """a % d for int arrays and d >= 1 (a mask for a power of two)."""
    return a & (d - 1) if d & (d - 1) == 0 else a % d


def _const_counters(m: Machine, p: int, ins, a: np.ndarray, g: np.ndarray) -> None:
    """A load from ``__constant__`` memory goes through the constant cache, not L1 and L2.
    nvcc reads a warp-uniform one as an operand from the constant bank (no instruction
    of its own), except in the loops ``issue.uniform_ldc_pcs`` finds; any other is an
    ``LDC``, which the constant cache serves one distinct address at a time: lanes
    reading different words replay it (``C.CONST_REPLAYS``), and
    each pass costs the SM ``timing.CONST_PASS_CYCLES`` (``C.CONST_PASSES``).
    The addresses each ``LDC`` walks are kept (``cnt.const_span``): a loop reading several
    tables a trip misses the cache (``simt.constcache``); so are the lines every warp
    reads there and the first warps' reads, for the misses of one table read at scattered
    words (``constcache.scatter_miss``).  A record's loads in a straight-line run
    (``simt.constrecord``) pair into ``LDC.64``s, and those after the run's first load of
    the table are marked where they read a line it (or another before them) read.
    Limitations: a pointer into constant memory passed around as a plain pointer counts
    as a global access when nothing tells where it points."""
    mat, act, warps = _warp_matrix(a, g)
    rn = C.Runs(mat, act)
    words = rn.addr                                         # each warp's distinct words
    replays = len(words) - len(warps)                       # distinct words - 1, per warp
    m.cnt.add(p, C.CONST_LD, len(warps))
    if replays:
        m.cnt.add(p, C.CONST_REPLAYS, replays)
    if not ins.info.get("uniform_addr") or p in m.uniform_ldc:
        passes = len(warps) + replays
        if p in m.const_record_pairs:
            passes -= _record_pair_passes(m, p, mat, act, warps)
        elif p in m.const_pairs:
            passes -= _const_pair_passes(m, p, mat, act, warps)
        if p in m.const_record_firsts:     # (each lane's word, for the load paired with it)
            _last_words(m, p)[warps[:, None] * 32 + LANES] = np.where(act, mat, -1)
        m.cnt.add(p, C.CONST_PASSES, passes)
        if len(words):                     # the addresses it walks (simt.constcache)
            lo, hi = int(words.min()), int(words.max())
            old = m.cnt.const_span.get(p)
            m.cnt.const_span[p] = (lo, hi) if old is None else (min(lo, old[0]), max(hi, old[1]))
            # every warp's passes by line: which lines the resident warps read most
            # (simt.constcache.scatter_miss)
            # (from the 64 KiB boundary below its first read: 128 KiB holds any 64 KiB bank)
            origin, hist = m.cnt.const_lines.setdefault(p, ((lo >> 16) << 16, np.zeros(2048, np.int64)))
            rel = (words - origin) >> 6
            got = np.bincount(rel[(rel >= 0) & (rel < len(hist))])
            hist[:len(got)] += got
            # the words the first warps to get here read, for how often each reads a word
            # again (simt.constcache: tables every warp reads whole stay in the cache)
            first = m.cnt.const_first.setdefault(p, m.gwarp0)
            got = m.cnt.const_reads.setdefault(p, [])
            if len(got) < constcache.TRACK_READS:
                gw = m.gwarp0 + warps[rn.row]
                t = gw < first + constcache.TRACK_WARPS
                if t.any():
                    got.append((gw[t].astype(np.int64) << 32) | (words[t] & 0xFFFFFFFF))
                    if p in m.const_follows or p in m.const_record_heads:
                        _follow_lines(m, p, got[-1], len(got) - 1)


def _last_words(m: Machine, p: int) -> np.ndarray:
    """Each lane's word at the constant load ``p`` when it last ran it (-1: none)."""
    if p not in m.const_record_prev:
        m.const_record_prev[p] = np.full(m.T, -1, np.int64)
    return m.const_record_prev[p]


def _record_pair_passes(m: Machine, p: int, mat: np.ndarray, act: np.ndarray, warps: np.ndarray) -> int:
    """The passes of this constant load that its record's ``LDC.64`` made with the load
    before it (``simt.constrecord``): those of the warps each of whose active lanes reads
    the word after the one it read there, that one 8-byte aligned."""
    prev = _last_words(m, m.const_record_pairs[p])[warps[:, None] * 32 + LANES]
    return _paired_passes(mat, act, (mat == prev + 4) & (prev % 8 == 0) & (prev >= 0))[1]


def _paired_passes(mat: np.ndarray, act: np.ndarray, ok: np.ndarray) -> tuple[np.ndarray, int]:
    """(the warps all of whose active lanes are ``ok``, their passes: distinct words)."""
    paired = np.all(ok | ~act, axis=1) & act.any(axis=1)
    return paired, (len(C.Runs(mat[paired], act[paired]).addr) if paired.any() else 0)


def _follow_lines(m: Machine, p: int, reads: np.ndarray, i: int) -> None:
    """For the tracked warps' reads (``reads``, execution ``i`` of ``p``): which fall on a
    line that an earlier load of their record's table in the same straight-line run read
    (``simt.constrecord``'s follows), kept as ``cnt.const_follow[p][i]``: they do not miss
    the constant cache (``constcache.scatter_miss``).  The run's first load starts its
    warps' lines again."""
    lines = ((reads >> 32) << 32) | ((reads & 0xFFFFFFFF) >> 6)
    head = m.const_follows.get(p, p)
    held = m.const_run_lines.get(head)
    if held is None:
        held = np.zeros(0, np.int64)
    if head == p:
        held = held[~np.isin(held >> 32, lines >> 32)]
    else:
        m.cnt.const_follow.setdefault(p, {})[i] = np.isin(lines, held)
    m.const_run_lines[head] = np.union1d(held, lines)


def _const_pair_passes(m: Machine, p: int, mat: np.ndarray, act: np.ndarray, warps: np.ndarray) -> int:
    """The passes of this constant load that the previous trip's ``LDC.64`` already made:
    those of the warps each of whose active lanes reads the word after the one it read
    last time, that one 8-byte aligned and not itself the second of a pair
    (``issue.const_pair_pcs``; nvcc proves the alignment, this sees it)."""
    if p not in m.const_prev:
        m.const_prev[p] = (np.full(m.T, -1, np.int64), np.zeros(m.T, bool))
    last, second = m.const_prev[p]
    lanes = warps[:, None] * 32 + np.arange(32)
    prev, was2 = last[lanes], second[lanes]
    paired, passes = _paired_passes(mat, act, (mat == prev + 4) & (prev % 8 == 0) & (prev >= 0) & ~was2)
    last[lanes[act]] = mat[act]
    second[lanes[act]] = np.broadcast_to(paired[:, None], act.shape)[act]
    return passes


SHARED_VECTOR_BYTES = 16          # LDS.128


def _shared_vector(m: Machine, p, off: np.ndarray, act: np.ndarray, warps: np.ndarray, size: int,
                   waves: np.ndarray, ideal: np.ndarray, begin: bool = False):
    """A shared load ``issue.shared_vector_pcs`` found: a warp each of whose active lanes
    reads the word after the one it read at this load last time (a trip of a loop nvcc
    unrolls fully), where the load that trip began, widened by this word, stays within
    ``SHARED_VECTOR_BYTES`` and aligned to its width, is part of that load (nvcc proves the
    alignment, this sees it).  ``p`` keys the lanes' groups: the load's pc, or
    ("field", its group's first pc) for a struct's fields (``simt.sharedfields``, loads or
    stores), whose first access (``begin``) only begins the group.  Returns (warps
    joined, their waves and ideal replaced by what the widening adds, the others' as
    given)."""
    if p not in m.shared_prev:
        m.shared_prev[p] = (np.full(m.T, -1, np.int64), np.full(m.T, -1, np.int64), np.zeros(m.T, np.int64))
    start, last, width = m.shared_prev[p]
    lanes = warps[:, None] * 32 + LANES
    st, la, wd = start[lanes], last[lanes], width[lanes]
    if begin:
        join = np.zeros(len(act), bool)
    else:
        new_w = wd + size
        ok = (la >= 0) & (off == la + size) & (new_w <= SHARED_VECTOR_BYTES) & (st % np.where(new_w > 8, 16, 8) == 0)
        join = np.all(ok | ~act, axis=1) & act.any(axis=1)
    # the same width in every lane of a joined warp (they began together)
    if join.any():
        w0 = np.where(act, wd, 0).max(axis=1)
        join &= np.all((wd == w0[:, None]) | ~act, axis=1)
    n = int(np.count_nonzero(join))
    if n:
        rows = np.flatnonzero(join)
        a2 = act[rows]
        old_waves = np.zeros(n, np.int64)
        new_waves = np.zeros(n, np.int64)
        old_ideal = np.zeros(n, np.int64)
        new_ideal = np.zeros(n, np.int64)
        wrow = np.where(a2, wd[rows], 0).max(axis=1)
        for w in np.unique(wrow):
            sel = wrow == w
            s2, a3 = st[rows][sel], a2[sel]
            s2 = np.where(a3, s2, 0)
            # (a 12-byte group is on its way to 16: priced as the 16 it becomes)
            ow, oi = C.wavefronts(s2, a3, _vector_width(int(w)))
            nw_, ni = C.wavefronts(s2, a3, _vector_width(int(w) + size))
            old_waves[sel], old_ideal[sel], new_waves[sel], new_ideal[sel] = ow, oi, nw_, ni
        waves = waves.copy()
        ideal = ideal.copy()
        waves[rows] = new_waves - old_waves
        ideal[rows] = np.minimum(new_ideal - old_ideal, waves[rows])
    # each lane's group: widened where its warp joined, begun anew elsewhere
    jl = np.broadcast_to(join[:, None], act.shape) & act
    fresh = act & ~jl
    start[lanes[fresh]] = off[fresh]
    width[lanes[fresh]] = size
    width[lanes[jl]] = wd[jl] + size
    last[lanes[act]] = off[act]
    return n, waves, ideal


def _vector_width(b: int) -> int:
    """The access a group of ``b`` bytes is priced as: 4, 8 or 16."""
    return 4 if b <= 4 else 8 if b <= 8 else 16


# one pass of a shared-memory CAS loop (LDS, FADD, ATOMS.CAST.SPIN, ISETP, the branch), and
# what each further wavefront of its LDS adds: one warp a block on the H200, 32 passes
# on one word 95.2 cycles a pass, 32 words in one bank 127.3 (1.9 a wavefront past the
# first; docs/results/timing_investigation/spin/)
SPIN_PASS_CYCLES = 95.0
SPIN_WAVE_CYCLES = 1.9


def _spin_cycles(m: Machine, ins, sel, act, full, blocks=None):
    """Per warp of the group, the cycles nvcc's CAS loop for a float atomicAdd on shared
    memory takes (``counters.spin_passes`` passes, a dependent chain each); None where the
    atomic is on global memory (a native RED/ATOM)."""
    A, idx, gl, n = m.gather_addr(ins, sel, act, full)
    if not n or int(A[0]) < SHARED_BASE or int(A[0]) >= LOCAL_BASE:
        return None
    nrows = act.size // 32
    mat = np.zeros(nrows * 32, np.int64)
    if idx is None:
        mat[:] = A
    else:
        mat[idx] = A
    size = np.dtype(ins.ctype.dtype).itemsize
    mat, act2 = mat.reshape(nrows, 32), act.reshape(nrows, 32)
    warps = np.arange(sel.start // 32, sel.start // 32 + nrows) if isinstance(sel, slice) \
        else np.asarray(sel).reshape(nrows, 32)[:, 0] // 32
    k, waves = C.spin_passes(mat - SHARED_BASE, act2, size,
                             blocks if blocks is not None and len(blocks) == nrows else None,
                             _spin_steady(m, m.L.pc_of(ins), warps, mat, act2, size, False))
    return k * SPIN_PASS_CYCLES + (waves - k) * SPIN_WAVE_CYCLES


# a shared CAS loop's warps stay together where the range of their lanes' words stays
# where their previous visit's was, and drift apart where it moves on (_spin_steady;
# timing_investigation/unseen233/notes.md: a PIC deposit's sorted particles)
SPIN_DRIFT_BY_RANGE = True
# False: a warp's words compared with its previous visit to the same CAS loop (pc). True
# (screening, off): with its previous CAS loop at any atomic, since a body of several
# atomics on different words (a bilateral grid's 16 splats a pixel, probes245.cu) staggers
# the warps after its first: Nsight's 21.8 passes a warp-level atomic to simt's 43.7
# (timing_investigation/unseen243/notes.md)
SPIN_DRIFT_ANY_ATOMIC = False


def _spin_steady(m: Machine, pc: int, warps, mat, act, size: int, commit: bool):
    """Per row (warps of the batch): whether the warp keeps its block's warps together on
    the CAS loop at ``pc`` (``counters.spin_passes``): this is its first visit (the block's
    warps come to it together), or the range of words its active lanes cover (lowest to
    highest) overlaps its previous visit's range by at least half of the two together.
    Lanes spread over a table that stays put (bins drawn at random, the same hot words
    each trip) meet the block's other warps there whatever their pace; words that move on
    from trip to trip (one word a trip, or a grid-stride loop over keys sorted by cell)
    leave the warps to drift apart into a pipeline.
    ``SPIN_DRIFT_BY_RANGE`` False: session 69's rule, which kept every row whose lanes
    spread over several words together.  ``SPIN_DRIFT_ANY_ATOMIC`` (off) compares with the
    warp's previous CAS loop wherever it was.  ``commit`` keeps this visit's range for the next
    (the counters' call, after the critical path's)."""
    key = -1 if SPIN_DRIFT_ANY_ATOMIC else pc
    last = m.spin_word.get(key)
    if last is None:
        last = m.spin_word[key] = np.full((m.b.W, 3), -1, np.int64)    # first word, lowest, highest
    has = act.any(axis=1)
    words = mat // size
    word = words[np.arange(len(mat)), np.argmax(act, axis=1)]
    lo = np.where(act, words, np.iinfo(np.int64).max).min(axis=1)
    hi = np.where(act, words, -1).max(axis=1)
    prev = last[warps]
    if commit:
        last[warps] = np.where(has[:, None], np.stack([word, lo, hi], axis=1), prev)
    first = prev[:, 0] < 0
    if not SPIN_DRIFT_BY_RANGE:
        one = ~(act & (words != word[:, None])).any(axis=1)
        return (prev[:, 0] == word) | first | ~one
    both = np.minimum(hi, prev[:, 2]) - np.maximum(lo, prev[:, 1]) + 1
    either = np.maximum(hi, prev[:, 2]) - np.minimum(lo, prev[:, 1]) + 1
    return first | ~has | (2 * both >= either)


def _warp_matrix(a: np.ndarray, g: np.ndarray):
    """Scatter per-lane values (lanes g, ascending) into a (warps, 32) matrix + mask."""
    n = len(g)
    if n and n % 32 == 0 and g[0] % 32 == 0 and g[-1] - g[0] + 1 == n:
        return a.reshape(-1, 32), np.ones((n // 32, 32), bool), g[::32] >> 5
    wid = g >> 5
    new = np.ones(n, bool)
    new[1:] = wid[1:] != wid[:-1]
    row = np.cumsum(new) - 1
    warps = wid[new]
    mat = np.zeros((len(warps), 32), np.int64)
    act = np.zeros((len(warps), 32), bool)
    col = g & 31
    mat[row, col] = a
    act[row, col] = True
    return mat, act, warps


# operations whose SASS tests the operands and branches to a slow path before the result
# (IEEE division: FCHK then a CALL, probe/thomas-batch's SASS; sqrtf's range test; the
# trigonometric functions' large-argument reduction, |x| >= 105615 for sincosf)
_SLOW_PATH = {"fdiv", "ddiv", "sqrt", "m_sin_f4", "m_cos_f4", "m_tan_f4", "m_sin_f8", "m_cos_f8",
              "m_tan_f8", "m_sin_f4_pair", "m_sin_f8_pair"}
# a branch (or an if-converted body's predicate) waits for its condition like any other
# instruction; the rest of the structural ops read nothing the scoreboard tracks
_NO_STALL = {Op.ELSE, Op.JUMP, Op.LOOPINIT, Op.BODYINIT, Op.KILL}
_DATAFLOW = {Op.BIN, Op.UN, Op.CAST, Op.MOV, Op.SELECT, Op.FMA}
# lane-wise calls that are one instruction or none in SASS (FRND, FMNMX, POPC, FLO, F2I, a
# register reinterpreted): arithmetic, so they flow along data dependences like _DATAFLOW
# instead of holding up the warp until their operands are ready.  probe/entropy-mesh-smem-
# atomic's floorf of each loaded coordinate made y's load wait for x's to return from
# DRAM, z's for y's, where the SASS issues the four loads together (unseen195/notes.md)
FLOW_CALLS = frozenset({
    "m_min", "m_max", "m_fmin", "m_fmax", "m_fabs", "m_floor", "m_ceil", "m_trunc", "m_rint",
    "m_nearbyint", "m_copysign", "m_fma", "m_add", "m_sub", "m_mul",
    "__popc", "__popcll", "__clz", "__clzll", "__brev", "__brevll",
    "__float_as_int", "__int_as_float", "__float_as_uint", "__uint_as_float",
    "__double_as_longlong", "__longlong_as_double",
    "__float2int_rn", "__float2int_rz", "__float2int_rd", "__float2int_ru",
    "__float2uint_rn", "__float2uint_rz", "__float2uint_rd", "__float2uint_ru",
    "__int2float_rn", "__uint2float_rn",
    "__funnelshift_l", "__funnelshift_lc", "__funnelshift_r", "__funnelshift_rc", "__byte_perm",
    "__umulhi", "__mulhi", "__usad", "__sad", "__dp4a", *SIMD_CALLS,
    # a double's halves and back (MOVs of a register pair); normf's loops over a run-time
    # dim: an FMNMX, and two FFMA-like steps, per coordinate (intrinsics._normp)
    "__double2hiint", "__double2loint", "__hiloint2double", "m_ddsq_hi", "m_ddsq_lo", "m_absmax"})
# what waits for a shared store that waited for its data (global loads do not: nvcc
# schedules them above it; ALU and branches only wait for their own operands)
_AFTER_STORES = {Op.LOAD, Op.STORE, Op.ATOM, Op.CALL, Op.BAR, Op.SYNCWARP, Op.PRINTF,
                 Op.ASSERT, Op.EXIT}


GATHER_SECTORS = 5      # a request on more sectors than a coalesced 128-byte line's four


def _gather_misses(m: Machine, ins, warps: np.ndarray, a: np.ndarray, sec: np.ndarray) -> None:
    """A gather (more than ``GATHER_SECTORS`` - 1 sectors a warp) from an allocation L2
    keeps only a share s of (``Counters.resident_share``) waits on DRAM unless all its k
    sectors are kept: ``LAT["dram"] - LAT["global"]`` longer, times 1 - s^k.  A warp of 32
    lanes each chasing its own pointer through 32 MiB on the H200 (s = 0.95) waits on DRAM
    at 81% of its steps (probe/chase-l2-32m, unseen53/: 399 ns a step).  Limitations: the
    share is the steady state of a table read at random over and over; which sectors L2
    keeps is not tracked."""
    if ins.dst is None or not len(warps):
        return
    k = int(np.searchsorted(m.L.alloc_starts, int(a.min()), side="right")) - 1
    share = m.cnt.resident_share
    if not (0 <= k < len(share)) or share[k] >= 1.0:
        return
    sec = np.asarray(sec)
    rows = sec >= GATHER_SECTORS
    if not rows.any():
        return
    extra = (LAT["dram"] - LAT["global"]) * (1.0 - share[k] ** sec[rows])
    w = warps[rows]
    for r in (ins.dst if isinstance(ins.dst, list) else (ins.dst,)):
        m.rt[r.slot][w] += extra
    ring = m.inflight.shape[1]
    m.inflight[w, (m.ifl_ptr[w] - 1) % ring] += extra


def _wait_dram(m: Machine, ins, warps: np.ndarray, kind: str) -> None:
    """A load or atomic whose sectors come from DRAM: its warps' results (and a load's
    slot among those in flight, written by ``advance_clock``) are ready ``LAT["dram"] -
    LAT["global"]`` later than from L2; an atomic's acknowledgement, which the warp's
    exit waits for, too."""
    extra = LAT["dram"] - LAT["global"]
    if ins.dst is not None:
        for r in (ins.dst if isinstance(ins.dst, list) else (ins.dst,)):
            m.rt[r.slot][warps] += extra
    if kind == "ld":
        ring = m.inflight.shape[1]
        m.inflight[warps, (m.ifl_ptr[warps] - 1) % ring] += extra
    else:
        m.wdrain[warps] = np.maximum(m.wdrain[warps], m.wclock[warps] + LAT["atom_global"] + extra)


def _l1_hits(m: Machine, ins, warps, mat, act, size, blocks, kind, fresh) -> None:
    """A uniform load whose sector an earlier load of its block brought into L1 has its
    data sooner (``simt.l1hits``): its registers and its slot among the loads in flight
    move to that time.  A store or atomic drops the sectors it writes."""
    if kind != "ld":
        if m.l1.ready:
            m.l1.write(L1Table.keys(mat, act, size, blocks))
        if m.l1_trips.at:
            m.l1_trips.forget(warps)
        return
    if ins.dst is None or _cost_key(ins) is not None:
        return
    keys = L1Table.keys(mat, act, size, blocks)
    dst = ins.dst if isinstance(ins.dst, list) else [ins.dst]
    t = m.rt[dst[0].slot][warps]
    lat = np.full(len(warps), LAT["global"])
    if fresh is not None:
        lat[fresh] += LAT["dram"] - LAT["global"]
    hit_t = t - lat + LAT_L1
    new = m.l1.load(keys, t, hit_t) if (keys >= 0).any() else None
    multi = keys < 0
    if multi.any():
        # several sectors: L1 hits on what the warp read here last trip (simt.l1hits);
        # most loads are such (a coalesced one spans 4 sectors): no row copies then
        rows = slice(None) if multi.all() else np.flatnonzero(multi)
        t2 = m.l1_trips.load(m.L.pc_of(ins), warps[rows], mat[rows] >> 5, act[rows], t[rows], hit_t[rows])
        if t2 is not None:
            new = t.copy() if new is None else new
            new[rows] = t2
    if new is None:
        return
    for r in dst:
        m.rt[r.slot][warps] = new
    ring = m.inflight.shape[1]
    slot = (m.ifl_ptr[warps] - 1) % ring
    m.inflight[warps, slot] = np.minimum(m.inflight[warps, slot], new)


def _unrolled_loads(k) -> frozenset:
    """The global loads whose innermost loop nvcc unrolls fully (``loops.full_unrolls``).
    Their trips are separate instructions in SASS, so a lane's sector from the previous
    trip is still in L1 only if L1 has kept it (``Counters._l1_kept``), not because the
    trips are pipelined.  probe/staggered-dslash reads each 72-byte link in three unrolled
    trips of three loads while the SM's other warps read theirs. Nsight counts 63% of its
    load sectors as L1 hits; 74% with one block an SM and 88 KiB of L1, and 29% with two
    and 48 KiB (timing_investigation/dslash/).  Computed once per kernel."""
    got = getattr(k, "_simt_unrolled_loads", None)
    if got is None:
        full = full_unrolls(k.code)
        got = k._simt_unrolled_loads = frozenset(p for p, inner in _global_accesses(k).items() if inner in full)
    return got


def _trip_by_trip_loads(k) -> frozenset:
    """The global loads whose innermost loop nvcc keeps and runs trip by trip, unrolling it
    neither fully nor by ``UNROLL`` (``issue.unrolled_loops``): an exit that depends on
    data, ``#pragma unroll 1``.  Computed once per kernel."""
    got = getattr(k, "_simt_by_trip_loads", None)
    if got is None:
        unrolled = unrolled_loops(k)
        got = k._simt_by_trip_loads = frozenset(p for p, inner in _global_accesses(k).items()
                                                if inner is not None and inner not in unrolled)
    return got


def _trip_dep(m, p: int, warps: np.ndarray) -> np.ndarray:
    """Per row, whether the lane's sector from its previous trip through load ``p`` is in L1
    only as far as L1 has kept it (``Counters._l1_missed_lines``' ``dep``), rather than
    for certain.  Kept as far as L1 keeps it in a loop nvcc unrolls fully (its trips
    spaced out by their work: ``_unrolled_loads``), in one it runs trip by trip (an exit
    that depends on data, ``#pragma unroll 1``), and where the address waited for the last
    trip's value: between a lane's two trips the SM's other warps touch their lines, and
    the line stays only if they all fit.  A lane's own 64-byte row read a float a trip
    under ``#pragma unroll 1``: Nsight counts 37% of the load sectors as L1 hits at 16 and
    64 warps an SM, 85% at 4; three rows, 0.2-4% (timing_investigation/urow/).
    Limitations: a loop nvcc unrolls by ``UNROLL`` keeps the sector for certain, as its
    groups of trips go out together; whether the next group still finds it was not
    measured."""
    if p in m.ld_unrolled or p in m.ld_by_trip:
        return np.ones(len(warps), bool)
    return m.ld_dep[warps]


def _kept_loops(k) -> dict:
    """pc -> the innermost loop (top, back) around it that nvcc keeps as a loop (does not
    unroll fully), None outside any; computed once per kernel."""
    got = getattr(k, "_simt_kept_loops", None)
    if got is None:
        full = full_unrolls(k.code)
        kept = sorted((r for r in loops(k.code) if r not in full), key=lambda r: r[0] - r[1])   # outermost first
        got = {}
        for top, back in kept:
            for p in range(top, back + 1):
                got[p] = (top, back)        # inner loops overwrite their outer ones
        k._simt_kept_loops = got
    return got


# an unrolled loop's store is back to back with its next trip's only where no global load
# or atomic of the loop comes between (unseen229/notes.md: quant-sr-int8's four err
# stores, each behind the next element's loads, reach L2 unmerged; storeload/)
UNROLLED_STORES_NEED_NO_LOADS = True


def _unrolled_stores(k) -> frozenset:
    """The global stores whose innermost loop nvcc unrolls fully and holds no global load
    or atomic: their trips are back to back in SASS, and L1 merges what they share
    (``counters._trip_sector_extra``).  Computed once per kernel."""
    got = getattr(k, "_simt_unrolled_stores", None)
    if got is None:
        full = full_unrolls(k.code)
        between = sorted(set(_global_accesses(k, Op.LOAD)) | set(_global_accesses(k, Op.ATOM)))
        got = k._simt_unrolled_stores = frozenset(
            p for p, inner in _global_accesses(k, Op.STORE).items()
            if inner in full and not (UNROLLED_STORES_NEED_NO_LOADS
                                      and any(inner[0] <= q <= inner[1] for q in between)))
    return got


def _global_accesses(k, op=Op.LOAD) -> dict:
    """pc -> the innermost loop (top, back) holding it, or None, of each global load (or
    of each global instruction of ``op``)."""
    code = k.code
    inner_first = loops(code)
    return {p: next(((a, b) for a, b in inner_first if a <= p <= b), None) for p, ins in enumerate(code)
            if ins.op == op and ins.info.get("space") not in ("shared", "local", "const")}


def _load_depths(k) -> dict:
    """Per load instruction (by pc), how many loads back the one it waits for is:
    ``loads_in_flight`` outside loops, and that many trips' worth of the global loads of
    the innermost loop holding it inside one (a loop: a backward jump and its target).
    Computed once per kernel."""
    got = getattr(k, "_simt_ld_depth", None)
    if got is not None:
        return got
    code = k.code
    base = int(LAT["loads_in_flight"])
    loads = _global_accesses(k)
    out = {}
    unrolled: dict = {}
    for p, inner in loads.items():
        if inner is None:
            out[p] = base
            continue
        per_trip = sum(1 for q in loads if inner[0] <= q <= inner[1])
        if inner not in unrolled:
            # trips in flight: all of a loop nvcc unrolls fully (a constant trip count),
            # loads_in_flight of a longer constant one, 1 of one with a run-time step,
            # and as many as nvcc unrolls a run-time trip count by (loops.runtime_unroll)
            if _runtime_stride(code, *inner):
                unrolled[inner] = 1
            elif trips := constant_trips(code, *inner):
                unrolled[inner] = max(base, trips)
            elif constant_trips(code, *inner, limit=PRAGMA_FULL):
                unrolled[inner] = base
            else:
                # an unrolled loop whose trips' loads nvcc cannot hoist keeps one trip's
                unrolled[inner] = 1 if HOIST_BLOCKERS and hoist_blockers(code, *inner, k.params) \
                    or REMAINDER_ONLY and remainder_only(code, *inner) else runtime_unroll(code, *inner)
        out[p] = min(_LOAD_CAP, unrolled[inner] * per_trip)
    k._simt_ld_depth = out
    return out


def _runtime_stride(code, top: int, back: int) -> bool:
    """Whether a loop steps its counter by a value known only at run time in unsigned
    arithmetic (``i += blockDim.x * gridDim.x``, ``c += blockDim.x``: C adds an int and
    an unsigned as unsigned).  nvcc does not unroll such a loop (sm_90 SASS of probes3.cu's
    softmax_rows and probes2.cu's vecadd_gridstride: one load per array, no unrolled
    copies), so a warp has one trip's loads in flight, not ``loads_in_flight`` trips'.
    A signed step (``int stride = ...; i += stride``) is unrolled where the body does not
    branch.  A constant step (``k++``, ``c +=
    32``) is unrolled (gemv_warp: 16 trips).  Anything else is taken as unrolled."""
    found = loop_test(code, top, back)
    if found is None:
        return False
    test, cmp = found
    for var in test_vars(code, test, cmp.args):      # (i in i + s < n)
        upd, step = counter_step(code, test, back, var)
        if step is not None:
            if type(step) is Const:
                return False
            add = copied_from(code, upd)
            # a signed counter cannot wrap (C leaves that undefined), so nvcc computes the
            # trip count and unrolls a straight-line body by 4 after all (kahan_dot's int
            # stride: 10 LDG, two a trip; histogram_register's: 4 in the unrolled body;
            # stream_ilp4_few's int T: 16, unseen53/); an unsigned add (i += blockDim.x *
            # gridDim.x, whose product is unsigned) can wrap.  A body that branches
            # (best.cu's spmv_csr_vector: four guarded pairs of loads a trip) is taken as
            # not unrolled: no SASS has shown otherwise
            signed = add is not None and add.dst is not None and add.dst.dtype.kind == "i"
            branches = any(code[p].op in (Op.IF, Op.LOOPTEST) for p in range(top, back + 1) if p != test)
            return not signed or branches
    return False


def _latency(m: Machine, ins, sel, act) -> float:
    op = ins.op
    if op == Op.LOAD and ins.info.get("space") == "const":
        return LAT["const"]
    if op in (Op.LOAD, Op.ATOM):
        a = m.rd(ins.args[0], sel)
        if np.ndim(a):
            a = a[int(np.argmax(act))]
        space = "global" if a < SHARED_BASE else ("local" if a >= LOCAL_BASE else "shared")
        if op == Op.ATOM:
            return LAT["atom_global"] if space == "global" else LAT["atom_shared"]
        return LAT[space]
    if op == Op.CALL:
        return LAT["warp"] if ins.sub.startswith("__") and "sync" in ins.sub else LAT["math"]
    if op == Op.MOV:
        return 0.0
    return LAT["alu"]


_UNSET = object()


def _cost_key(ins):
    """The ``OP_COST`` entry of an instruction, or None for an ordinary one (decided once
    and kept on the instruction)."""
    k = getattr(ins, "_cost_key", _UNSET)
    if k is not _UNSET:
        return k
    k = None
    op = ins.op
    if op == Op.BIN and ins.sub in ("div", "mod") and ins.dst is not None:
        dt = np.dtype(ins.dst.dtype)
        b = ins.args[1]
        if dt.kind == "f":
            if not (type(b) is Const and _pow2(abs(float(b.value)))) and ins.info.get("divisor") != "pow2":
                k = "fdiv" if dt.itemsize == 4 else "ddiv"
        elif ins.info.get("divisor") == "shared":      # the quotient's other half (loops)
            k = "quotient_shared" if ins.sub == "div" and type(b) is Const else None
        elif dt.kind in "iu" and dt.itemsize == 8:
            if type(b) is not Const:
                k = "idiv64_s" if dt.kind == "i" else "idiv64_u"
            elif (v := abs(int(b.value))) & (v - 1):
                k = ("idiv64_const" if ins.sub == "div" else "imod64_const") + \
                    ("_add" if dt.kind == "u" and _magic_add(v, 64) else "")
        elif dt.kind in "iu" and dt.itemsize <= 4:
            if ins.info.get("divisor") == "again":      # the reciprocal of one before it (loops)
                k = "idiv_again_s" if dt.kind == "i" else "idiv_again_u"
            elif ins.info.get("divisor"):               # an unrolled loop's counter (loops)
                k = None if ins.info["divisor"] == "pow2" else "idiv_const"
            elif type(b) is Const:
                v = abs(int(b.value))
                if v & (v - 1) == 0:                    # a power of two: a shift or a mask
                    k = None
                elif dt.kind == "i":
                    k = "idiv_const"
                else:
                    k = ("udiv_const" if ins.sub == "div" else "umod_const") + ("_add" if _magic_add(v, 32) else "")
            else:
                k = "idiv_s" if dt.kind == "i" else "idiv_u"
    elif (w := ins.info.get("product64")) is not None:
        k = None if w == "mul_narrow" else "mulhi64" if w.startswith("__") else "imul64"
    elif op == Op.CALL:
        if ins.sub == "m_sqrt" and ins.dst is not None and np.dtype(ins.dst.dtype) == np.float32:
            k = "sqrt"
        elif ins.sub == "__match_any_sync":
            k = "match"
        elif ins.sub == "__match_all_sync":
            k = "match_all"
        elif ins.sub == "__simt_xorwow_matvec":
            k = "xorwow_matvec"
        elif ins.sub in ROUNDING_COST:
            k = ROUNDING_COST[ins.sub]
        elif ins.dst is not None and str(ins.sub).startswith("m_"):
            # an int result (ilogbf) is priced by the type of its argument
            dt = np.dtype(ins.dst.dtype)
            if dt.kind != "f" and ins.args and np.dtype(ins.args[-1].dtype).kind == "f":
                dt = np.dtype(ins.args[-1].dtype)
            k = (f"{ins.sub}_f{dt.itemsize}" + ("_fast" if ins.info.get("fast") else "")
                 + ("_pair" if ins.info.get("pair") else ""))
            k = k if k in OP_COST else None
    ins._cost_key = k
    return k


@functools.lru_cache(maxsize=None)
def _magic_add(d: int, bits: int) -> bool:
    """Whether unsigned division of ``bits``-bit values by the constant ``d`` needs the
    "add" fix-up: no multiplier m < 2^bits and shift s have x / d == (x * m) >> (bits + s)
    for every x (m d - 2^(bits + s) <= 2^s, Granlund and Montgomery), nor do they for d's
    odd part on x shifted right by d's trailing zeros (the pre-shift LLVM makes for an
    even d).  7 and 2^31 - 1 need it in 64 bits, 10 and 10^9 + 7 do not."""
    def fits(dd: int, width: int) -> bool:
        for s in range(bits + 1):
            m = -(-(1 << (width + s)) // dd)
            if m >= 1 << bits:
                return False
            if m * dd - (1 << (width + s)) <= 1 << s:
                return True
        return False
    z = (d & -d).bit_length() - 1
    return not fits(d, bits) and not (z and fits(d >> z, bits - z))


def _pow2(v: float) -> bool:
    m, _ = np.frexp(v)
    return v > 0 and m == 0.5


def _active_warps(act, full) -> int:
    return act.size // 32 if full else int(np.count_nonzero(_rows_any(act.reshape(-1, 32))))


def _op_cost(m: Machine, key: str, ins, sel, act, full):
    """(latency, issue cycles) of an expensive instruction, per warp of the group; adds the
    issue cycles of its active warps to ``simt__issue_extra_cycles``."""
    if key == "match":
        # distinct values among each warp's active lanes
        v = np.broadcast_to(np.asarray(m.rd(ins.args[1], sel)), act.shape).reshape(-1, 32)
        k = _distinct_per_warp(v, act.reshape(-1, 32))
        per = OP_COST["match_value"]
        lat = OP_COST["match"][0] + per[0] * k
        busy = per[1] * k
        m.cnt.add(ins.pc, C.ISSUE_EXTRA, float(busy.sum()))
        return lat, busy
    if key in ("idiv_s", "idiv_u"):
        again = _same_divisor(m, ins, sel, act)
        lat0, busy0 = OP_COST["idiv"]
        lat1, busy1 = OP_COST["idiv_again" + key[-2:]]
        lat = np.where(again, lat1, lat0)
        busy = np.where(again, busy1, busy0)
        on = busy if full else busy[_rows_any(act.reshape(-1, 32))]
        m.cnt.add(ins.pc, C.ISSUE_EXTRA, float(on.sum()))
        return lat, busy
    if key == "fdiv":
        a, b = (np.broadcast_to(np.asarray(m.rd(x, sel), np.float32), act.shape) for x in ins.args[:2])
        extra = fdiv_slow_path(a, b, act)
        lat0, busy0 = OP_COST["fdiv"]
        lat, busy = lat0 + FDIV_SLOW_LATENCY * extra, busy0 + extra
        m.cnt.add(ins.pc, C.ISSUE_EXTRA, busy0 * _active_warps(act, full) + float(extra.sum()))
        return lat, busy
    if key == "m_lgamma_f4":
        x = np.broadcast_to(np.asarray(m.rd(ins.args[0], sel), np.float32), act.shape)
        extra = lgammaf_paths(x, act) - LGAMMAF_MEASURED_PATH
        lat0, busy0 = OP_COST[key]
        lat, busy = lat0 + FDIV_SLOW_LATENCY * extra, busy0 + extra
        on = _rows_any(act.reshape(-1, 32))
        m.cnt.add(ins.pc, C.ISSUE_EXTRA, float(busy[on].sum()))
        return lat, busy
    if key in ("idiv64_s", "idiv64_u"):
        a, b = (np.broadcast_to(np.asarray(m.rd(x, sel)).astype(np.uint64), act.shape) for x in ins.args[:2])
        short = ((a | b) >> np.uint64(32)) == 0
        fast = _rows_any((act & short).reshape(-1, 32))
        slow = _rows_any((act & ~short).reshape(-1, 32))
        (lat0, busy0), (lat1, busy1) = OP_COST["idiv64_32"], OP_COST[key]
        lat = np.where(fast, lat0, 0.0) + np.where(slow, lat1, 0.0)
        busy = np.where(fast, busy0, 0.0) + np.where(slow, busy1, 0.0)
        m.cnt.add(ins.pc, C.ISSUE_EXTRA, float(busy.sum()))
        return lat, busy
    lat, busy = OP_COST[key]
    m.cnt.add(ins.pc, C.ISSUE_EXTRA, busy * _active_warps(act, full))
    return lat, busy


# IEEE float division's slow path: FCHK sends a warp to a subroutine when some lane's
# operands are outside what the reciprocal and its Newton steps get right.  The SASS it
# adds a warp, from docs/results/timing_investigation/fchk/ (sm__inst_executed per class of
# operands, H100; 15.8 a division in all without it): a zero, subnormal, infinite or NaN
# operand 38-42 (0 / x 37.5, inf / x and x / 0 41.5), a quotient or a divisor near the ends
# of the range 42-48 (1e30 / 1e-20, 1e-30 / 1e20, 1 / 3e38: 47.5; 1e-37 / 3, 1e19 / 1e-19:
# 42.5).  The times per division follow the counts (one instruction a cycle).  The bounds
# below are what those classes fix (3e38 / 3 stays fast), not FCHK's documented rule (there
# is none); the latency is an estimate (a chain of dependent instructions and branches).
FDIV_SLOW_SPECIAL, FDIV_SLOW_RANGE = 38.0, 48.0
FDIV_SLOW_LATENCY = 4.0              # cycles of latency per extra instruction


# lgammaf, as nvcc inlines it (sm_90 SASS of probe/negbin-logpmf, probes46.cu): a test of
# |x| against 3, then 7.8 or 1.5 and 0.7, picks one of five polynomial paths, and a test of
# x < 0 adds the reflection (sinpi and a log) for negative arguments.  A warp runs every
# path one of its active lanes needs.  Per path, the SASS instructions: |x| >= 7.8 (Stirling,
# a log and a reciprocal) 42, [3, 7.8) 13, [1.5, 3) 13, [0.7, 1.5) 14, below 0.7 (a log) 35;
# each subtree entered costs its test and branch (2), and the head and the sign test 9.  A
# negative argument that is not an integer takes 56 more, one below 1e-19 26, a pole 4.
# OP_COST's m_lgamma_f4 was measured (math2/) on a chain near 2.5: one path, 24 instructions.
LGAMMAF_MEASURED_PATH = 24.0
_LGAMMAF_RANGES = ((7.8, np.inf, 42.0), (3.0, 7.8, 13.0), (1.5, 3.0, 13.0), (0.7, 1.5, 14.0), (0.0, 0.7, 35.0))


def lgammaf_paths(x: np.ndarray, act: np.ndarray) -> np.ndarray:
    """Per warp (rows of 32 lanes): the SASS instructions lgammaf runs for the arguments of
    its active lanes (0 for a warp with none)."""
    a2 = act.reshape(-1, 32)
    xs = np.asarray(x, np.float32).reshape(-1, 32)
    ax = np.abs(xs)
    some = lambda m: (m & a2).any(axis=1)
    n = 9.0 + 2.0 * some(ax >= 3) + 2.0 * some(ax < 3) + 2.0 * some(ax < 1.5)
    for lo, hi, cost in _LGAMMAF_RANGES:
        n = n + cost * some((ax >= lo) & (ax < hi))
    neg = xs < 0
    pole = neg & (np.floor(ax) == ax)
    n = n + 56.0 * some(neg & ~pole & (ax >= 1e-19)) + 26.0 * some(neg & (ax < 1e-19)) + 4.0 * some(pole)
    return np.where(a2.any(axis=1), n, 0.0)


def fdiv_slow_path(a: np.ndarray, b: np.ndarray, act: np.ndarray) -> np.ndarray:
    """Per warp (rows of 32 lanes): the SASS instructions float a / b adds for its slow path
    (0 where every active lane takes the fast one)."""
    ea = ((np.ascontiguousarray(a, np.float32).view(np.uint32) >> 23) & 0xFF).astype(np.int32)
    eb = ((np.ascontiguousarray(b, np.float32).view(np.uint32) >> 23) & 0xFF).astype(np.int32)
    special = (ea == 0) | (ea == 255) | (eb == 0) | (eb == 255)
    d = ea - eb
    rng = ~special & ((eb >= 253) | (ea <= 25) | (d >= 127) | (d <= -126))
    act = act.reshape(-1, 32)
    return np.where(_rows_any((rng.reshape(-1, 32) & act)), FDIV_SLOW_RANGE,
                    np.where(_rows_any(special.reshape(-1, 32) & act), FDIV_SLOW_SPECIAL, 0.0))


def _same_divisor(m: Machine, ins, sel, act) -> np.ndarray:
    """Per warp: does every active lane divide by what it divided by the last time it ran
    this instruction (so the compiler's hoisted reciprocal serves)?"""
    prev = m.divisors.get(ins.pc)
    if prev is None:
        prev = m.divisors[ins.pc] = (np.zeros(m.T, np.int64), np.zeros(m.T, bool))
    vals, seen = prev
    b = np.broadcast_to(np.asarray(m.rd(ins.args[1], sel), np.int64), act.shape)
    same = (seen[sel] & (vals[sel] == b)) | ~act
    vals[sel] = np.where(act, b, vals[sel])
    seen[sel] |= act
    return same.reshape(-1, 32).all(axis=1)


def _distinct_per_warp(v: np.ndarray, a2: np.ndarray) -> np.ndarray:
    """Distinct values among the active lanes of each row of a (warps, 32) matrix."""
    first = v[np.arange(len(v)), np.argmax(a2, axis=1)]
    srt = np.sort(np.where(a2, v, first[:, None]), axis=1)
    k = (srt[:, 1:] != srt[:, :-1]).sum(axis=1) + 1
    return np.where(a2.any(axis=1), k, 0)


def _local_store_lines(m: Machine, ins, sel, act, full):
    """A local store: the GPU interleaves local memory by lane (word w of every lane of a
    warp shares one 128-byte line) and writes it through to L2, so each distinct word the
    warp's lanes write is one line to L2 (``simt__local_store_lines``), one when they all
    write the same word.  Stores nvcc makes register moves (simt.promote: arrays indexed
    only by constants and fully unrolled loops' counters) never get here."""
    a = m.rd(ins.args[0], sel)
    if np.ndim(a) == 0:                   # one word for every lane: a line a warp
        lines = int(np.count_nonzero(act.reshape(-1, 32).any(axis=1)))
    else:
        k = _distinct_per_warp(np.asarray(a, np.int64).reshape(-1, 32) // 4, act.reshape(-1, 32))
        lines = int(k.sum())
    if lines:
        m.cnt.add(ins.pc, C.LOCAL_STORE_LINES, lines)


def _bin(m: Machine, ins, sel, act, full, aw, w, wsel):
    a = m.rd(ins.args[0], sel)
    b = m.rd(ins.args[1], sel)
    f = BINOPS[ins.sub]
    if isinstance(f, np.ufunc):
        m.apply(ins, f, (a, b), sel, act, full)
    else:
        m.wr(ins.dst, sel, f(a, b), act, full)


def _un(m, ins, sel, act, full, aw, w, wsel):
    m.apply(ins, UNOPS[ins.sub], (m.rd(ins.args[0], sel),), sel, act, full)


def _cast(m, ins, sel, act, full, aw, w, wsel):
    a = m.rd(ins.args[0], sel)
    r = ins.dst
    dt = r.dtype
    if isinstance(sel, slice) and type(a) is np.ndarray and dt.kind != "b" \
            and not (a.dtype.kind == "f" and dt.kind in "iu") and m.regs[r.slot].dtype == dt:
        # a plain numpy conversion (what cast_value does here): straight into the register
        out = m.regs[r.slot][sel]
        if full or not r.is_var:
            np.copyto(out, a, casting="unsafe")
        else:
            np.copyto(out, a, casting="unsafe", where=act)
        return
    m.wr(r, sel, cast_value(a, dt), act, full)


def _mov(m, ins, sel, act, full, aw, w, wsel):
    m.wr(ins.dst, sel, m.rd(ins.args[0], sel), act, full)


def _select(m, ins, sel, act, full, aw, w, wsel):
    c, a, b = (m.rd(o, sel) for o in ins.args)
    m.wr(ins.dst, sel, np.where(c, a, b), act, full)


def _fma_h(m, ins, sel, act, full, aw, w, wsel):
    a, b, c = (m.rd(o, sel) for o in ins.args)
    m.wr(ins.dst, sel, _fma(np.asarray(a), np.asarray(b), c), act, full)


def _lane_slice(sel, idx):
    """The lanes of an access as a slice of lane ids, when they are one."""
    return sel if idx is None and isinstance(sel, slice) else None


def _elem_index(byte, itemsize: int):
    """Byte offsets to element indices (itemsize is a power of two: a shift)."""
    if itemsize == 1:
        return byte
    return byte >> (itemsize.bit_length() - 1) if itemsize & (itemsize - 1) == 0 else byte // itemsize


def _elem(ctype):
    if isinstance(ctype, Vector):
        return ctype.elem.dtype, ctype.n
    if isinstance(ctype, Scalar):
        return ctype.dtype, 1
    return np.dtype(np.int64), 1


def _load(m: Machine, ins, sel, act, full, aw, w, wsel):
    A, idx, gl, n = m.gather_addr(ins, sel, act, full)
    size = sizeof(ins.ctype)
    dt, nf = _elem(ins.ctype)
    parts = m.translate(A, gl, size, ins, "ld", _lane_slice(sel, idx))
    fields = np.arange(nf) if nf > 1 else None
    out = np.empty((n, nf) if fields is not None else n, dt)
    for space, byte, pos in parts:
        e = _elem_index(byte, dt.itemsize)
        v = m.view(space, dt)[e if fields is None else e[:, None] + fields]
        if pos is None:
            out = v
        else:
            out[pos] = v
    if m.sanitizer is not None:
        m.sanitizer.access(m, ins, parts, gl, size, "ld")
    for k, r in enumerate(ins.dst if fields is not None else [ins.dst]):
        col = out if fields is None else out[:, k]
        if idx is None:
            m.regs[r.slot][sel] = col
        else:
            m.regs[r.slot][gl] = col
    m.access_counters(m.L.pc_of(ins), ins, parts, A, gl, size, "ld")


def _store(m: Machine, ins, sel, act, full, aw, w, wsel):
    A, idx, gl, n = m.gather_addr(ins, sel, act, full)
    size = sizeof(ins.ctype)
    dt, nf = _elem(ins.ctype)
    parts = m.translate(A, gl, size, ins, "st", _lane_slice(sel, idx))
    if m.sanitizer is not None:
        m.sanitizer.access(m, ins, parts, gl, size, "st")
    vals = []
    for o in ins.args[1:]:
        v = m.rd(o, sel)
        if np.ndim(v) == 0:
            v = np.full(n, v, dt)
        elif idx is not None:
            v = v[idx]
        vals.append(np.asarray(v).astype(dt, copy=False))
    for space, byte, pos in parts:
        view = m.view(space, dt)
        e = _elem_index(byte, dt.itemsize)
        for k in range(nf):
            view[e + k] = vals[k] if pos is None else vals[k][pos]
    m.access_counters(m.L.pc_of(ins), ins, parts, A, gl, size, "st")


_ATOM_F = {
    "add": lambda old, v, c: old + v,
    "sub": lambda old, v, c: old - v,
    "exch": lambda old, v, c: v,
    "min": lambda old, v, c: np.minimum(old, v),
    "max": lambda old, v, c: np.maximum(old, v),
    "and": lambda old, v, c: old & v,
    "or": lambda old, v, c: old | v,
    "xor": lambda old, v, c: old ^ v,
    "inc": lambda old, v, c: np.where(old >= v, old.dtype.type(0), old + old.dtype.type(1)),
    "dec": lambda old, v, c: np.where((old == 0) | (old > v), v, old - old.dtype.type(1)),
    "cas": lambda old, v, c: np.where(old == c, v, old),
}
_UFUNC_AT = {"add": np.add, "sub": np.subtract, "min": np.minimum, "max": np.maximum,
             "and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}


def _cas_retries(m: Machine, ins, gl, e, lost) -> int:
    """Lanes whose last CAS at this instruction lost a race on the word they name again
    now: a CAS loop's retry.  A lane that lost and went elsewhere (a hash probe moving to
    the next slot) or left (finding its own key there, as `if (prev == key) break;` does)
    retried nothing (probe/mesh-weld-soup-cas-hash, unseen111/).  Per instruction, the
    word each lane last lost (-1: none), over the lanes of the blocks in flight."""
    last = m.cas_lost.get(ins.pc)
    if last is None:
        last = m.cas_lost[ins.pc] = np.full(m.b.W * 32, -1, np.int64)
    gl = np.asarray(gl)
    e = np.asarray(e, np.int64)
    again = int(np.count_nonzero(last[gl] == e))
    last[gl] = np.where(lost, e, -1)
    return again


def _lanes_of_distinct_warps(e, gl) -> int:
    """Lanes whose warp's lanes all name different words (``e``: word index per lane,
    ``gl``: the lanes' ids, ascending)."""
    mat, act, _ = _warp_matrix(np.asarray(e, np.int64), np.asarray(gl))
    n = act.sum(axis=1)
    return int(n[_distinct_per_warp(mat, act) == n].sum())


def _atom(m: Machine, ins, sel, act, full, aw, w, wsel):
    A, idx, gl, n = m.gather_addr(ins, sel, act, full)
    dt = ins.ctype.dtype
    size = dt.itemsize
    parts = m.translate(A, gl, size, ins, "atom", _lane_slice(sel, idx))
    if m.sanitizer is not None:
        m.sanitizer.access(m, ins, parts, gl, size, "atom")

    def operand(o):
        v = m.rd(o, sel)
        if np.ndim(v) == 0:
            return np.full(n, v, dt)
        return np.asarray(v if idx is None else v[idx]).astype(dt, copy=False)

    if ins.sub == "cas":
        cmp_, val = operand(ins.args[1]), operand(ins.args[2])
    else:
        val, cmp_ = operand(ins.args[1]), None
    ret = np.empty(n, dt) if ins.dst is not None else None
    cas_lanes = cas_failed = cas_stale = cas_distinct = cas_retried = 0
    with np.errstate(all="ignore"):
        for space, byte, pos in parts:
            view = m.view(space, dt)
            e = _elem_index(byte, size)
            v = val if pos is None else val[pos]
            c = None if cmp_ is None else (cmp_ if pos is None else cmp_[pos])
            before = view[e] if c is not None and space == "global" else None
            r = _apply_atomic(view, e, v, c, ins.sub, ret is not None or c is not None, dt)
            if before is not None:
                # a lane whose compare value no longer holds fails: it lost the word to a
                # lane of this instruction (a race its CAS loop retries) or the word held
                # another value already (stale: a hash probe finding its slot taken)
                miss = r != c
                stale = miss & (before != c)
                cas_lanes += len(e)
                cas_failed += int(np.count_nonzero(miss))
                cas_stale += int(np.count_nonzero(stale))
                cas_distinct += _lanes_of_distinct_warps(e, gl if pos is None else gl[pos])
                cas_retried += _cas_retries(m, ins, gl if pos is None else gl[pos], e, miss & ~stale)
            if ret is not None:
                if pos is None:
                    ret = r
                else:
                    ret[pos] = r
    if ret is not None:
        if idx is None:
            m.regs[ins.dst.slot][sel] = ret
        else:
            m.regs[ins.dst.slot][gl] = ret
    p = m.L.pc_of(ins)
    if cas_lanes:
        m.cnt.add(p, "simt__atomic_cas_lanes.sum", cas_lanes)
        m.cnt.add(p, "simt__atomic_cas_failed.sum", cas_failed)
        m.cnt.add(p, "simt__atomic_cas_stale.sum", cas_stale)
        m.cnt.add(p, "simt__atomic_cas_distinct_lanes.sum", cas_distinct)
        m.cnt.add(p, "simt__atomic_cas_retried.sum", cas_retried)
    pre = []
    for space, byte, pos in parts:
        a = A if pos is None else A[pos]
        g = gl if pos is None else gl[pos]
        mat, act2, warps = _warp_matrix(a, g)
        if space == "shared" and not ins.info.get("aggregated"):
            # shared atomics need no run table: lanes per address from one sort, the
            # busiest word of each block from one count of the lanes' words
            _atomic_serialization(m, p, space, mat, act2, warps, None, len(g), byte)
            pre.append((mat, act2, warps, None))
            continue
        runs = C.Runs(mat, act2)
        pre.append((mat, act2, warps, runs))
        if ins.info.get("aggregated"):      # one lane per warp reaches memory
            first = np.ones(len(g), bool)
            first[1:] = (g[1:] // 32) != (g[:-1] // 32)
            mat1, act1, w1 = _warp_matrix(a[first], g[first])
            _atomic_serialization(m, p, space, mat1, act1, w1, C.Runs(mat1, act1), int(first.sum()))
        else:
            _atomic_serialization(m, p, space, mat, act2, warps, runs, len(g))
    m.access_counters(p, ins, parts, A, gl, size, "atom" if ins.dst is not None else "red", pre)


def _apply_atomic(view, e, v, c, op, want, dt):
    """Apply an atomic to view[e] lane by lane in lane order; return the old values."""
    if not want and op in _UFUNC_AT and (op != "sub" or dt.kind != "f"):
        _UFUNC_AT[op].at(view, e, v)
        return None
    if not want and op == "exch":
        view[e] = v
        return None
    order = np.argsort(e, kind="stable")
    es = e[order]
    vs = v[order]
    start = np.ones(len(es), bool)
    start[1:] = es[1:] != es[:-1]
    seg = np.cumsum(start) - 1
    first = np.flatnonzero(start)
    rank = np.arange(len(es)) - first[seg]
    ret_sorted = np.empty(len(es), dt)
    if op in ("add", "sub") and dt.kind in "iu":
        acc_t = np.uint64 if dt.kind == "u" else np.int64
        sv = vs.astype(acc_t)
        if op == "sub":
            sv = (np.zeros_like(sv) - sv)
        cs = np.cumsum(sv)
        excl = cs - sv
        prefix = excl - excl[first][seg]
        init = view[es[first]].astype(acc_t)
        ret_sorted[:] = (init[seg] + prefix).astype(dt)
        last = np.r_[first[1:], len(es)] - 1
        view[es[first]] = (init + (cs[last] - excl[first])).astype(dt)
    else:
        cs_ = None if c is None else c[order]
        for r in range(int(rank.max()) + 1):
            k = np.flatnonzero(rank == r)
            ek = es[k]
            old = view[ek].copy()
            ret_sorted[k] = old
            view[ek] = _ATOM_F[op](old, vs[k], None if cs_ is None else cs_[k]).astype(dt)
    ret = np.empty(len(es), dt)
    ret[order] = ret_sorted
    return ret


def _atomic_serialization(m: Machine, p: int, space: str, mat, act, warps, runs, nlanes: int,
                          byte=None):
    """Per warp atomic: lanes per address and the serialized steps it costs.  Shared
    atomics may come without ``runs``, with ``byte`` (each lane's byte in sbuf) instead."""
    nw = len(warps)
    if runs is None:
        steps, n_addr = C.lanes_per_address(mat, act, full=nlanes == mat.size)
    else:
        steps = runs.steps()
        n_addr = len(runs.len)
    cnt = m.cnt
    for pre in ("simt__atomic", f"simt__atomic_{space}"):
        cnt.add(p, pre + "_lanes.sum", nlanes)
        cnt.add(p, pre + "_addresses.sum", n_addr)
        cnt.add(p, pre + "_serialized_steps.sum", int(steps.sum()))
    cnt.add(p, "simt__atomic_warp_instructions.sum", nw)
    if runs is None:    # lanes per shared word of the batch (a word's lanes are its block's)
        m.shared_hot += np.bincount(byte >> 2, minlength=len(m.shared_hot))
        cnt.shared_hot_max = max(cnt.shared_hot_max, float(m.shared_hot.max()))
    else:
        addrs, lens = runs.addr, runs.len
        blk = m.lane_blk[warps * 32][runs.row]
        if space == "global":
            ins = m.code[p]
            dt = np.dtype(ins.ctype.dtype)
            # a sector's atomics form one chain: a warp's lanes on it take as long as the
            # most of them on one word (fpsector/)
            st, sectors, most = runs.sector_max()
            cnt.hot_addresses(sectors, most, blocks=m.b.blocks[blk[st]],
                              fp=ins.sub == "add" and dt.kind == "f" and dt.itemsize >= 4)
        else:   # shared atomics contend within a block: key the address by the block
            key = blk * max(m.S, 1) + (addrs - SHARED_BASE)
            m.shared_hot += np.bincount(key // 4, weights=lens, minlength=len(m.shared_hot))
            cnt.shared_hot_max = max(cnt.shared_hot_max, float(m.shared_hot.max()))
    if len(cnt.atomics) < 64 and nw:
        groups = {}
        for lane in np.flatnonzero(act[0]).tolist():
            groups.setdefault(int(mat[0, lane]), []).append(lane)
        cnt.atomics.append({"pc": p, "warp": int(m.gwarp0 + warps[0]), "addresses": list(groups),
                            "lanes": list(groups.values()), "steps": int(steps[0])})


def _call(m: Machine, ins, sel, act, full, aw, w, wsel):
    name = ins.sub
    fn = CALLS.get(name)
    if fn is not None:
        args = [np.asarray(m.rd(o, sel)) for o in ins.args]
        with np.errstate(all="ignore"):
            r = fn(*args)
        m.wr(ins.dst, sel, np.asarray(r).astype(ins.dst.dtype, copy=False), act, full)
        return
    WARP_CALLS[name](m, ins, sel, act, full)


def _mask_bits(act2):
    return (act2.astype(np.uint32) * BIT).sum(axis=1, dtype=np.uint64).astype(np.uint32)


def _w_activemask(m, ins, sel, act, full):
    bits = _mask_bits(act.reshape(-1, 32))
    m.wr(ins.dst, sel, np.repeat(bits, 32), act, full)


def _w_vote(m, ins, sel, act, full):
    act2 = act.reshape(-1, 32)
    mask = np.broadcast_to(np.asarray(m.rd(ins.args[0], sel), np.uint32), act.shape).reshape(-1, 32)
    pred = np.broadcast_to(np.asarray(m.rd(ins.args[1], sel)), act.shape).reshape(-1, 32)
    inmask = ((mask >> np.arange(32, dtype=np.uint32)) & 1).astype(bool)
    part = act2 & inmask
    name = ins.sub
    if name == "__ballot_sync":
        r = _mask_bits(part & pred)
    elif name == "__any_sync":
        r = (part & pred).any(axis=1).astype(np.int32)
    elif name == "__all_sync":
        r = (~part | pred).all(axis=1).astype(np.int32)
    else:  # __uni_sync
        r = ((part & pred).any(axis=1) == (~part | pred).all(axis=1)).astype(np.int32)
    m.wr(ins.dst, sel, np.repeat(r, 32), act, full)


def _w_shfl(m, ins, sel, act, full):
    var = np.broadcast_to(np.asarray(m.rd(ins.args[1], sel)), act.shape).reshape(-1, 32)
    arg = np.broadcast_to(np.asarray(m.rd(ins.args[2], sel)).astype(np.int64), act.shape).reshape(-1, 32)
    width = np.broadcast_to(np.asarray(m.rd(ins.args[3], sel)).astype(np.int64), act.shape).reshape(-1, 32)
    lane = LANES[None, :]
    base = (lane // width) * width
    name = ins.sub
    if name == "__shfl_sync":
        src = base + (arg % width)
    elif name == "__shfl_up_sync":
        src = np.where(lane - base >= arg, lane - arg, lane)
    elif name == "__shfl_down_sync":
        src = np.where(lane - base + arg < width, lane + arg, lane)
    else:
        src = lane ^ arg
        src = np.where((src // width) * width == base, src, lane)
    src = np.clip(src, 0, 31)
    r = np.take_along_axis(var, src, axis=1)
    m.wr(ins.dst, sel, r.ravel(), act, full)


def _w_match(m, ins, sel, act, full):
    act2 = act.reshape(-1, 32)
    v = np.broadcast_to(np.asarray(m.rd(ins.args[1], sel)), act.shape).reshape(-1, 32)
    mask = np.broadcast_to(np.asarray(m.rd(ins.args[0], sel), np.uint32), act.shape).reshape(-1, 32)
    inmask = ((mask >> np.arange(32, dtype=np.uint32)) & 1).astype(bool)
    part = act2 & inmask
    m.wr(ins.dst, sel, _match_groups(v, part).ravel(), act, full)


_LANE_BIT = np.uint32(1) << np.arange(32, dtype=np.uint32)
_MATCH_BINS = 1 << 22


def _match_groups(v: np.ndarray, part: np.ndarray) -> np.ndarray:
    """Per warp row of ``v``: each lane's mask of the participating lanes (``part``) that
    hold its value.  A warp's lanes have distinct bits, so a group's OR is its sum: for
    integers of a small range, a bincount over (row, value); otherwise each row sorted, a
    run of equal values a group."""
    if v.dtype.kind in "iub" and v.dtype.itemsize <= 4 and v.size:
        lo = int(v.min())
        span = int(v.max()) - lo + 1
        if span * len(v) <= _MATCH_BINS:
            key = (np.arange(len(v))[:, None] * span + (v.astype(np.int64) - lo)).ravel()
            sums = np.bincount(key, weights=np.where(part, _LANE_BIT, np.uint32(0)).ravel(),
                               minlength=span * len(v))
            return sums[key].astype(np.uint32).reshape(v.shape)
    order = np.argsort(v, axis=1, kind="stable")
    sv = np.take_along_axis(v, order, axis=1)
    bit = np.where(np.take_along_axis(part, order, axis=1), _LANE_BIT[order], np.uint32(0))
    start = np.empty(sv.shape, bool)
    start[:, 0] = True
    np.not_equal(sv[:, 1:], sv[:, :-1], out=start[:, 1:])
    start = start.ravel()
    groups = np.bitwise_or.reduceat(bit.ravel(), np.flatnonzero(start))
    bits = np.empty_like(bit)
    np.put_along_axis(bits, order, groups[np.cumsum(start) - 1].reshape(sv.shape), axis=1)
    return bits


_REDUX = {"add": (np.add, 0), "min": (np.minimum, None), "max": (np.maximum, None),
          "and": (np.bitwise_and, None), "or": (np.bitwise_or, 0), "xor": (np.bitwise_xor, 0)}


def _w_redux(m, ins, sel, act, full):
    act2 = act.reshape(-1, 32)
    mask = np.broadcast_to(np.asarray(m.rd(ins.args[0], sel), np.uint32), act.shape).reshape(-1, 32)
    dt = np.dtype(ins.dst.dtype)
    v = np.broadcast_to(np.asarray(m.rd(ins.args[1], sel), dt), act.shape).reshape(-1, 32)
    part = act2 & ((mask >> np.arange(32, dtype=np.uint32)) & 1).astype(bool)
    op = ins.sub.split("_")[3]                       # __reduce_<op>_sync
    fn, ident = _REDUX[op]
    if ident is None:           # min/max/and: the identity is the type's extreme
        ident = np.iinfo(dt).min if op == "max" else np.iinfo(dt).max
    wide = np.where(part, v.astype(np.int64), np.int64(ident))
    r = fn.reduce(wide, axis=1).astype(dt)        # add wraps as the 32-bit hardware does
    m.wr(ins.dst, sel, np.repeat(r, 32), act, full)


def _w_lanemask(m, ins, sel, act, full):
    lane = np.arange(32, dtype=np.uint64)
    name = ins.sub
    if name == "__laneid":
        r = lane.astype(np.uint32)
    else:
        below = ((np.uint64(1) << lane) - np.uint64(1)).astype(np.uint32)
        r = {"__lanemask_lt": below, "__lanemask_le": below | (np.uint32(1) << lane.astype(np.uint32)),
             "__lanemask_gt": ~(below | (np.uint32(1) << lane.astype(np.uint32))),
             "__lanemask_ge": ~below}[name]
    n = act.size // 32
    m.wr(ins.dst, sel, np.tile(r.astype(np.uint32), n), act, full)


def _w_clock(m, ins, sel, act, full):
    m.wr(ins.dst, sel, np.asarray(m.step_no).astype(ins.dst.dtype), act, full)


def _w_match_all(m, ins, sel, act, full):
    """__match_all_sync(mask, v, &pred): each lane's mask where every participating lane
    (active, in its own mask) holds the same bits of v, else 0 (pred: whether it was)."""
    act2 = act.reshape(-1, 32)
    v = np.ascontiguousarray(np.broadcast_to(np.asarray(m.rd(ins.args[1], sel)), act.shape)).reshape(-1, 32)
    v = v.view({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[v.dtype.itemsize])
    mask = np.broadcast_to(np.asarray(m.rd(ins.args[0], sel), np.uint32), act.shape).reshape(-1, 32)
    part = act2 & ((mask >> np.arange(32, dtype=np.uint32)) & 1).astype(bool)
    first = v[np.arange(len(v)), np.argmax(part, axis=1)]
    same = np.all(~part | (v == first[:, None]), axis=1)
    m.wr(ins.dst, sel, np.where(same[:, None], mask, np.uint32(0)).astype(np.uint32).ravel(), act, full)


def _w_space(m, ins, sel, act, full):
    """__isGlobal / __isConstant: a generic address below the shared window is global
    memory (NULL and the gaps between allocations included), unless it falls in a
    __constant__ variable's allocation."""
    a = np.broadcast_to(np.asarray(m.rd(ins.args[0], sel)).astype(np.int64), act.shape)
    glob = a < SHARED_BASE
    const = np.zeros(a.shape, bool)
    dev = m.L.device
    if dev.starts and glob.any():
        starts = np.asarray(dev.starts, np.int64)
        ends = np.maximum(np.asarray(dev.ends, np.int64), starts + 1)
        k = np.searchsorted(starts, a, side="right") - 1
        kk = np.clip(k, 0, len(starts) - 1)
        isc = np.array([n.startswith("__constant__") for n in dev.names])
        const = glob & (k >= 0) & (a < ends[kk]) & isc[kk]
    r = const if ins.sub == "__isConstant" else glob & ~const
    m.wr(ins.dst, sel, r.astype(np.uint32), act, full)


WARP_CALLS = {
    "__match_all_sync": _w_match_all, "__isGlobal": _w_space, "__isConstant": _w_space,
    "__activemask": _w_activemask,
    "__ballot_sync": _w_vote, "__any_sync": _w_vote, "__all_sync": _w_vote, "__uni_sync": _w_vote,
    "__shfl_sync": _w_shfl, "__shfl_up_sync": _w_shfl, "__shfl_down_sync": _w_shfl,
    "__shfl_xor_sync": _w_shfl, "__match_any_sync": _w_match,
    **{f"__reduce_{k}_sync": _w_redux for k in _REDUX},
    "__lanemask_lt": _w_lanemask, "__lanemask_le": _w_lanemask, "__lanemask_gt": _w_lanemask,
    "__lanemask_ge": _w_lanemask, "__laneid": _w_lanemask, "clock": _w_clock,
}


def _push_level(m: Machine, ins, sel, act, full, aw, w, wsel):
    m.M[ins.depth + 1][sel] = act


def _count_split(m: Machine, ins, act, taken, aw) -> np.ndarray:
    """Divergence bookkeeping of a branch: how many warps reached it and how many it split
    (some lanes taken, some not). Returns, per warp, whether any lane is taken."""
    t2 = taken.reshape(-1, 32)
    has = _rows_any(t2)
    d = m.cnt.divergence[ins.pc]
    d[0] += int(np.count_nonzero(aw))
    d[1] += int(np.count_nonzero(has & _rows_any((taken != act).reshape(-1, 32))))
    return has


def _if(m: Machine, ins, sel, act, full, aw, w, wsel):
    c = np.broadcast_to(np.asarray(m.rd(ins.args[0], sel), bool), act.shape)
    then = act & c
    m.M[ins.depth + 1][sel] = then
    m.regs[ins.ereg.slot][sel] = act & ~c
    has = _count_split(m, ins, act, then, aw)
    # an if-converted branch does not jump: the warp issues the body with lanes off
    return ~aw if ins.info.get("predicated") else ~has


def _else(m: Machine, ins, sel, act, full, aw, w, wsel):
    e = m.regs[ins.ereg.slot][sel] & act
    m.M[ins.depth + 1][sel] = e
    return ~aw if ins.info.get("predicated") else ~_rows_any(e.reshape(-1, 32))


def _looptest(m: Machine, ins, sel, act, full, aw, w, wsel):
    if ins.args:
        c = np.broadcast_to(np.asarray(m.rd(ins.args[0], sel), bool), act.shape)
        new = act & c
        m.M[ins.depth][sel] = new
        return ~_count_split(m, ins, act, new, aw)
    return ~aw


def _jump(m, ins, sel, act, full, aw, w, wsel):
    return True


def _kill(m: Machine, ins, sel, act, full, aw, w, wsel):
    lv, d = ins.level, ins.depth
    if isinstance(sel, slice):
        m.M[lv:d + 1, sel] &= ~act
    else:
        blk = m.M[lv:d + 1][:, sel]
        m.M[lv:d + 1][:, sel] = blk & ~act
    if lv == 0:
        dead = ~_rows_any(m.M[0][sel].reshape(-1, 32))
        if dead.any():
            ws = _warp_ids(wsel)[dead]
            m.state[ws] = DONE
            if m.rt is not None:    # a warp none of whose lanes is left ends here, as at _exit
                m.cnt.warp_finish(m.gwarp0 + ws, np.maximum(m.wclock[ws], m.wdrain[ws]))
            m.release()


def _bar(m: Machine, ins, sel, act, full, aw, w, wsel):
    alive = m.M[0][sel]
    bad = _rows_any((act != alive).reshape(-1, 32)) & aw
    if bad.any():
        j = int(np.flatnonzero(bad)[0])
        act2 = act.reshape(-1, 32)[j]
        alive2 = alive.reshape(-1, 32)[j]
        wi = int(_warp_ids(wsel)[j])
        blk = m.L.block_coords(int(m.b.blocks[m.wblk[wi]]))
        raise LaunchError(
            f"Barrier error: {ins.sub or '__syncthreads'}() reached by only {int(act2.sum())} of the "
            f"{int(alive2.sum())} live threads of warp {wi % m.b.wpb} in block {blk} "
            f"(active mask {_mask_bits(act2[None])[0]:#010x}, expected {_mask_bits(alive2[None])[0]:#010x}); "
            "it sits in divergent code", ins.coord, tool="synccheck", block=blk)
    ws = _warp_ids(wsel)[aw]
    if ins.dst is not None:     # __syncthreads_count/_and/_or: each warp's share of the vote
        pred = np.broadcast_to(np.asarray(m.rd(ins.args[0], sel)), act.shape).reshape(-1, 32)
        act2 = act.reshape(-1, 32)
        m.bar_yes[ws] = (act2 & pred).sum(axis=1)[aw]
        m.bar_live[ws] = act2.sum(axis=1)[aw]
    pc = m.L.pc_of(ins)
    m.cnt.add_warp("simt__barriers", m.gwarp0 + ws, 1)
    m.cnt.add(pc, C.VOTE_WARPS if ins.dst is not None else C.BAR_WARPS, len(ws))
    m.state[ws] = WAIT
    m.pc[wsel] = pc + 1
    m.release()
    return False


def _syncwarp(m, ins, sel, act, full, aw, w, wsel):
    if m.sanitizer is not None:    # orders the warp's shared accesses (racecheck)
        ws = np.asarray(_warp_ids(wsel))
        m.sanitizer.syncwarp(ws[aw] if aw is not None else ws)
    return None


def _exit(m: Machine, ins, sel, act, full, aw, w, wsel):
    ws = _warp_ids(wsel)
    m.state[ws] = DONE
    if m.rt is not None:
        m.cnt.warp_finish(m.gwarp0 + ws, np.maximum(m.wclock[ws], m.wdrain[ws]))
    # a block whose other warps wait at a barrier this warp never reached: synccheck
    blks = np.unique(m.wblk[ws])
    waiting = (m.state == WAIT) & np.isin(m.wblk, blks)
    finished_live = ws[aw] if aw is not None else ws
    if waiting.any() and len(finished_live):
        j = int(np.flatnonzero(waiting)[0])
        bar = m.code[int(m.pc[j]) - 1]
        b = int(m.wblk[j])
        blk = m.L.block_coords(int(m.b.blocks[b]))
        nw = int(np.count_nonzero(waiting & (m.wblk == b)))
        raise LaunchError(
            f"Barrier error: __syncthreads() at line {bar.line} reached by only {nw} of the "
            f"{m.b.wpb} warps of block {blk}; the others finished without reaching it "
            "(the barrier is inside a condition that differs across the block)",
            bar.coord, tool="synccheck", block=blk)
    m.release()
    return False


def _printf(m: Machine, ins, sel, act, full, aw, w, wsel):
    idx = np.flatnonzero(act)
    vals = [np.broadcast_to(np.asarray(m.rd(o, sel)), act.shape)[idx] for o in ins.args]
    fmt = _py_format(ins.sub)
    strings = ins.info.get("strings", ()) if ins.info else ()
    for k in range(len(idx)):
        if len(m.stdout) >= m.L.max_printf:
            return
        args = tuple(_c_string(m, int(v[k]), ins) if j in strings else v[k].item()
                     for j, v in enumerate(vals))
        try:
            m.stdout.append(fmt % args)
        except (TypeError, ValueError):
            m.stdout.append(ins.sub + " " + " ".join(map(str, args)))


def _c_string(m: Machine, addr: int, ins) -> str:
    """The NUL-terminated string at ``addr`` for printf's %s: read from global memory
    (string literals, __constant__ and __device__ arrays, kernel arguments), up to the end
    of its allocation; a null pointer prints "(null)", as the GPU's printf does."""
    if addr == 0:
        return "(null)"
    if addr >= SHARED_BASE:
        raise LaunchError(f"printf's %s at line {ins.coord.line} reads a string in shared or "
                          "local memory, which simt's printf does not follow (it reads global "
                          "and constant memory)", ins.coord, tool="printf")
    k = int(np.searchsorted(m.L.alloc_starts, addr, side="right")) - 1
    if k < 0 or addr >= m.L.alloc_ends[k]:
        raise LaunchError(f"printf's %s at line {ins.coord.line} reads address {hex(addr)}, "
                          "which is not inside any allocation", ins.coord, tool="memcheck")
    buf = m.L.device.buf[addr - GLOBAL_BASE:int(m.L.alloc_ends[k]) - GLOBAL_BASE].tobytes()
    return buf.split(b"\0", 1)[0].decode("utf-8", "replace")


def _py_format(fmt: str) -> str:
    return PRINTF_CONVERSION.sub(
        lambda mt: "%" + mt.group(1) + ({"p": "x", "u": "d"}.get(mt.group(2), mt.group(2))), fmt)


def _assert(m: Machine, ins, sel, act, full, aw, w, wsel):
    c = np.broadcast_to(np.asarray(m.rd(ins.args[0], sel), bool), act.shape)
    bad = act & ~c
    if bad.any():
        j = int(np.flatnonzero(bad)[0])
        lane = int(m.lanes_of(sel, np.array([j]))[0])
        thread, block = m.thread_block(lane)
        if ins.info.get("trap"):
            raise LaunchError(f"__trap() called in thread {thread} of block {block}: the kernel "
                              "stops (on the GPU: unspecified launch failure)", ins.coord,
                              tool="trap", thread=thread, block=block)
        raise LaunchError(f"Assertion failed in thread {thread} of block {block}", ins.coord,
                          tool="assert", thread=thread, block=block)


HANDLERS = {
    Op.BIN: _bin, Op.UN: _un, Op.CAST: _cast, Op.MOV: _mov, Op.SELECT: _select, Op.FMA: _fma_h,
    Op.LOAD: _load, Op.STORE: _store, Op.ATOM: _atom, Op.CALL: _call,
    Op.IF: _if, Op.ELSE: _else, Op.LOOPINIT: _push_level, Op.BODYINIT: _push_level,
    Op.LOOPTEST: _looptest, Op.JUMP: _jump, Op.KILL: _kill, Op.BAR: _bar,
    Op.SYNCWARP: _syncwarp, Op.PRINTF: _printf, Op.ASSERT: _assert, Op.EXIT: _exit,
}
# instructions that must run even for a warp with no active lanes (they move the mask/pc)
_ALWAYS = {Op.IF, Op.ELSE, Op.LOOPTEST, Op.JUMP, Op.EXIT, Op.LOOPINIT, Op.BODYINIT}
