"""Several-sector loads that find in L1 what the same warp read there on its previous
trip (simt.l1hits.TripSectors): a byte-compare loop's loads stay on their sectors and
are L1 hits; a loop whose lanes move on to new sectors every trip waits on L2."""
import numpy as np

from simt import Module
from simt.l1hits import TripSectors
from simt.launch import LaunchConfig
from simt.memory import Device

SRC = r"""
extern "C" __global__ void walk(const unsigned char *t, int *out, int step, int trips) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int acc = 0;
    for (int m = 0; m < trips; ++m) acc += t[i * 7 + m * step + (acc & 1)];   // each load waits for the last
    out[i] = acc;
}
"""


def _cycles_per_trip(step):
    mod = Module.from_source(SRC, "walk.cu")
    per = []
    for trips in (8, 24):
        dev = Device()
        t = dev.to_device(np.arange(1 << 16, dtype=np.uint8))
        out = dev.zeros(64, np.int32)
        r = mod.get_function("walk").launch(dev, LaunchConfig.of(1, 64), [t, out, np.int32(step), np.int32(trips)])
        per.append(r.metrics["simt__block_cycles.mean"])
    return (per[1] - per[0]) / 16


def test_a_byte_walk_hits_l1_and_a_jump_does_not():
    near = _cycles_per_trip(1)          # lanes 7 bytes apart: 7 sectors, the same ones next trip
    far = _cycles_per_trip(1024)        # every trip 1 KiB on: new sectors
    assert far > 250                    # L2's 290 cycles a trip
    assert near < 100                   # L1's 30, most trips


def test_trip_sectors_rules():
    ts = TripSectors(4)
    w = np.array([0, 1])
    act = np.ones((2, 32), bool)
    sec = np.tile(np.arange(32) // 8, (2, 1)).astype(np.int64)         # 4 sectors a row
    t, hit = np.array([300.0, 300.0]), np.array([40.0, 40.0])
    assert ts.load(7, w, sec, act, t, hit) is None                     # first trip: nothing held
    t2, hit2 = np.array([700.0, 700.0]), np.array([440.0, 440.0])
    got = ts.load(7, w, sec + np.array([[0], [1]]), act, t2, hit2)
    # row 0 reads the same sectors: a hit; row 1 moved all its lanes a sector on, into
    # sector 4 that nobody held: a miss
    assert got is not None and got[0] == 440.0 and got[1] == 700.0
    ts.forget(np.array([0]))
    assert ts.load(7, w[:1], sec[:1], act[:1], t2[:1], hit2[:1]) is None   # a store: forgotten
