"""Registers per thread limit how many blocks an SM holds (simt.occupancy)."""
from pathlib import Path

import numpy as np

import simt
from simt import counters as C
from simt import timing
from simt.occupancy import blocks_by_registers, estimate_registers

KERNELS = Path(__file__).resolve().parent.parent / "kernels_cuda"


def test_register_limit_follows_the_allocation_unit():
    # 65,536 registers per SM, a warp's share rounded up to 256 (8 a thread)
    assert blocks_by_registers(32, 256) == 8
    assert blocks_by_registers(33, 256) == blocks_by_registers(40, 256) == 6
    assert blocks_by_registers(44, 256) == blocks_by_registers(48, 256) == 5
    assert blocks_by_registers(64, 1024) == 1
    assert blocks_by_registers(0, 256) > 1000           # no estimate: no limit


def test_estimate_is_near_nvcc_where_it_limits_occupancy():
    """nvcc gives scan_lookback 44 registers and a one-line copy 8-10
    (docs/results/timing_investigation/regs/compare.txt)."""
    best = simt.Module.from_file(KERNELS / "best.cu")
    est = estimate_registers(best.get_function("scan_lookback").ir)
    assert 41 <= est <= 47
    assert blocks_by_registers(est, 256) == 5
    races = simt.Module.from_file(KERNELS / "races.cu")
    assert 8 <= estimate_registers(races.get_function("race_case1_fixed").ir) <= 14


def test_launch_reports_registers_and_prediction_uses_them():
    src = """
    extern "C" __global__ void wide(const float4 *in, float4 *out) {
        int i = blockIdx.x * blockDim.x * 4 + threadIdx.x;
        float4 a = in[i], b = in[i + 256], c = in[i + 512], d = in[i + 768];
        float4 e = in[i + 1024], f = in[i + 1280], g = in[i + 1536], h = in[i + 1792];
        out[i] = make_float4(a.x * e.w + b.y * f.z + c.z * g.y + d.w * h.x,
                             a.y + b.x + c.w + d.z + e.x + f.y + g.z + h.w,
                             a.z * b.w * c.x * d.y * e.z * f.x * g.w * h.y,
                             a.w - b.z - c.y - d.x - e.y - f.w - g.x - h.z);
    }"""
    mod = simt.Module.from_source(src, "wide.cu")
    dev = simt.Device()
    n = 64 * 256 * 8
    res = mod.get_function("wide").launch(dev, simt.LaunchConfig.of(grid=64, block=256),
                                          [dev.zeros(n * 4, np.float32), dev.zeros(n * 4, np.float32)],
                                          sanitize=False)
    regs = res.metrics[C.REGS]
    assert regs > 32                                      # 32 float values live at once
    prof = timing.load_profile("h100")
    with_regs = timing.predict(res.metrics, 132 * 64, 256, 0, prof)
    without = timing.predict({k: v for k, v in res.metrics.items() if k != C.REGS}, 132 * 64, 256, 0, prof)
    assert without.occupancy_blocks_per_sm == 8
    assert with_regs.occupancy_blocks_per_sm == blocks_by_registers(regs, 256) < 8
    assert with_regs.waves > without.waves


def test_run_reports_what_limits_occupancy():
    """`simt run --json` gives each launch its blocks per SM and the limit that sets them;
    the text report says it under the launch."""
    import json
    import subprocess
    import sys
    cmd = [sys.executable, "-m", "tui.cli", "run", "scan/decoupled-lookback", "--n", "65536", "--gpu", "h100"]
    out = subprocess.run(cmd + ["--json"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    init, look = json.loads(out.stdout)["launches"]
    assert init["occupancy"]["limited_by"] == "threads" and init["occupancy"]["blocks_per_sm"] == 8
    assert look["occupancy"]["limited_by"] == "registers" and look["occupancy"]["blocks_per_sm"] == 5
    assert look["occupancy"]["registers_per_thread_est"] == look["metrics"][C.REGS]
    text = subprocess.run(cmd, capture_output=True, text=True).stdout
    assert "5 blocks per SM (limited by registers (~" in text


def test_each_block_keeps_a_kibibyte_of_shared_memory_back():
    """The driver reserves 1 KiB of shared memory for every resident block (sm_80 on), so
    blocks of 76 KiB fit two to an SM's 228 KiB, not three; 57 KiB blocks fit three, not four,
    and blocks that ask for no shared memory are not limited by it."""
    from simt import timing
    prof = timing.load_profile("h100")
    assert prof.shared_per_sm == 228 * 1024
    lim = timing.occupancy_limits
    assert lim(prof, 256, 76 * 1024)["shared memory"] == 2
    assert lim(prof, 128, 57 * 1024)["shared memory"] == 3
    assert lim(prof, 128, 56 * 1024)["shared memory"] == 4           # 4 x 57 KiB = 228 KiB
    assert lim(prof, 64, 0)["shared memory"] == prof.max_blocks_sm


def _wide_kernel(bounds: str) -> str:
    """70 values live at once (loaded, then summed in reverse): more registers than 64."""
    loads = "\n".join(f"    float a{i} = x[{i} * n + threadIdx.x];" for i in range(70))
    total = " + ".join(f"a{i}" for i in reversed(range(70)))
    return (f"__global__ void {bounds} wide(const float *x, float *y, int n) {{\n{loads}\n"
            f"    y[threadIdx.x] = {total};\n}}\n")


def test_launch_bounds_cap_the_registers_and_the_block():
    """``__launch_bounds__(max_threads, min_blocks)`` makes nvcc fit min_blocks blocks of
    max_threads on an SM (spilling the rest): (1024) caps a thread at 64 registers,
    (256, 2) at 128; a launch of more threads than max_threads is refused."""
    import pytest
    from simt.occupancy import bounded_registers, launch_bounds
    free = simt.Module.from_source(_wide_kernel(""), "w.cu").get_function("wide")
    capped = simt.Module.from_source(_wide_kernel("__launch_bounds__(1024)"), "w.cu").get_function("wide")
    assert free.registers > 64 and free.bounds is None
    assert capped.bounds == (1024, 1) and capped.registers == 64
    assert blocks_by_registers(capped.registers, 1024) == 1
    assert bounded_registers(200, (256, 2)) == 128 and bounded_registers(95, (256, 2)) == 95
    assert launch_bounds("__global__ __launch_bounds__(128, 4) void k(int *p) {}") == {"k": (128, 4)}
    dev = simt.Device()
    args = [dev.zeros(70 * 2048, np.float32), dev.zeros(2048, np.float32), np.int32(2048)]
    capped.launch(dev, simt.LaunchConfig.of(1, 1024), args, sanitize=False)
    with pytest.raises(simt.UsageError, match=r"__launch_bounds__\(512\)"):
        k = simt.Module.from_source(_wide_kernel("__launch_bounds__(512)"), "w.cu").get_function("wide")
        k.launch(dev, simt.LaunchConfig.of(1, 1024), args, sanitize=False)


def test_arrays_nvcc_keeps_in_registers_count_toward_the_estimate():
    """KinectFusion's ICP reduction (probes187.cu's icp_reduce) sums 29 doubles a thread in
    ``acc[k++]`` inside fully unrolled loops: nvcc keeps them in registers (90 a thread,
    no local memory: unseen185/probes187_res.txt), so an SM holds one block of 512, not
    four."""
    from simt.promote import register_arrays, register_locals
    ir = simt.Module.from_file(KERNELS / "probes187.cu").get_function("icp_reduce").ir
    local = [ins.pc for ins in ir.code if ins.info.get("space") == "local"]
    assert set(local) == set(register_locals(ir))                 # every access a register move
    assert 58 in [w for _, _, w in register_arrays(ir)]           # acc: 29 doubles
    est = estimate_registers(ir)
    assert 80 <= est <= 96 and blocks_by_registers(est, 512) == 1


def test_a_counter_stepped_under_an_if_keeps_its_array_in_local_memory():
    src = r'''extern "C" __global__ void k(const float *x, double *o) {
        double acc[6];
        for (int q = 0; q < 6; q++) acc[q] = 0.0;
        int i = threadIdx.x, k = 0;
        for (int a = 0; a < 3; a++)
            for (int b = a; b < 3; b++) STEP
        for (int q = 0; q < 6; q++) o[q * 32 + i] = acc[q];
    }'''
    from simt.promote import register_locals
    def kept(step):
        ir = simt.Module.from_source(src.replace("STEP", step), "t.cu").get_function("k").ir
        local = {ins.pc for ins in ir.code if ins.info.get("space") == "local"}
        return local <= register_locals(ir)
    assert kept("acc[k++] = (double)x[a] * x[b];")
    assert not kept("if (x[b] > 0.0f) acc[k++] = x[a];")          # k depends on the data
    assert not kept("acc[x[a] > 0.0f ? k++ : k] = x[b];")
