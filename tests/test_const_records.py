"""A __constant__ record's loads in one straight-line run (simt.constrecord): nvcc reads two
adjacent fields at an 8-byte aligned offset with one LDC.64, and the record's later loads
read the line the first brought into the constant cache (probe/film-energy-const-f64red's
three LDC.64 for a 24-byte struct of floats, docs/results/timing_investigation/unseen191/)."""
import numpy as np
import pytest

import simt
from simt import counters as C
from simt.constrecord import record_loads

SRC = """
struct Rec { FIELDS };
__constant__ Rec c_rec[NREC];
extern "C" __global__ void k(const int *idx, float *o) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    READ
    o[t] = SUM;
}"""
COPY = "Rec r = c_rec[idx[t]];"
SIX = ("float a, b, c, d, e, f;", "r.a + r.b * r.c - r.d + r.e * r.f", COPY)
THREE = ("float a, b, c;", "r.a + r.b * r.c", COPY)
ONE = ("float a, b, c, d, e, f;", "a", "float a = c_rec[idx[t]].a;")       # the first field alone


def _kernel(shape, nrec):
    fields, total, read = shape
    src = SRC.replace("FIELDS", fields).replace("SUM", total).replace("READ", read).replace("NREC", str(nrec))
    return simt.Module.from_source(src, "rec.cu")


def _run(shape, nrec, idx, blocks, threads=256, **kw):
    mod = _kernel(shape, nrec)
    dev = simt.Device()
    nf = len(shape[0].split(","))
    table = np.arange(nrec * nf, dtype=np.float32).reshape(nrec, nf) % 97
    mod.get_global(dev, "c_rec").set(table)          # (its bytes, as cudaMemcpyToSymbol)
    o = dev.zeros(blocks * threads, np.float32)
    r = mod.get_function("k").launch(dev, simt.LaunchConfig.of(blocks, threads), [dev.to_device(idx), o],
                                     sanitize=False, **kw)
    rec = table[idx]
    want = {SIX: lambda: rec[:, 0] + rec[:, 1] * rec[:, 2] - rec[:, 3] + rec[:, 4] * rec[:, 5],
            THREE: lambda: rec[:, 0] + rec[:, 1] * rec[:, 2], ONE: lambda: rec[:, 0]}[shape]()
    if not kw:
        assert np.array_equal(o.get(), want.astype(np.float32))
    return r.metrics


def test_a_struct_copy_pairs_its_aligned_fields():
    """Six floats from c_rec[idx] at offsets 0..20 of a 24-byte stride: (0, 4), (8, 12),
    (16, 20) are pairs, and every load after the first follows it; a 12-byte stride
    (three floats) cannot be proved aligned: no pair."""
    ir = _kernel(SIX, 256).get_function("k").ir
    code = ir.code
    pairs, follows = record_loads(ir)
    loads = [p for p, ins in enumerate(code) if ins.info.get("space") == "const"]
    assert len(loads) == 6
    assert pairs == {loads[1]: loads[0], loads[3]: loads[2], loads[5]: loads[4]}
    assert follows == {p: loads[0] for p in loads[1:]}
    pairs3, follows3 = record_loads(_kernel(THREE, 256).get_function("k").ir)
    assert pairs3 == {} and len(follows3) == 2


def test_paired_fields_take_one_pass():
    """idx = t % 8: eight records a warp, eight passes a load.  The six-float record is
    three LDC.64: 24 passes a warp, not 48; the 12-byte one stays three loads: 24."""
    idx = (np.arange(256) % 8).astype(np.int32)
    six = _run(SIX, 256, idx, 1)
    assert six[C.CONST_PASSES] == 8 * 24
    three = _run(THREE, 256, idx, 1)
    assert three[C.CONST_PASSES] == 8 * 24


def test_a_records_later_loads_do_not_miss_again():
    """Records picked at random from a 48 KB table (2048 of 24 bytes): the first load of
    each misses the constant cache as one scattered read does; the later pairs read the
    line it brought in, except where the record crosses into the next line (2 of every 8
    records).  So the six fields cost about 1.25 times the misses of the first alone, not
    three times."""
    rng = np.random.default_rng(5)
    blocks = 132 * 4
    idx = rng.integers(0, 2048, blocks * 256).astype(np.int32)
    six = _run(SIX, 2048, idx, blocks, sample_blocks=2)
    one = _run(ONE, 2048, idx, blocks, sample_blocks=2)
    assert one[C.CONST_SCATTER_CYCLES] > 0
    assert six[C.CONST_SCATTER_CYCLES] / one[C.CONST_SCATTER_CYCLES] == pytest.approx(1.25, abs=0.12)
