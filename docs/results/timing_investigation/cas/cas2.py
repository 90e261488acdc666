"""CAS microbenchmarks (cas.cu) on the present GPU, continued: steady states on 64 and
256 words, small grids.  python cas2.py > cas2_<gpu>.jsonl  (cas.py's helpers)"""
import json

from cas import SMEM, props, run


def main():
    print(json.dumps({"device": props["name"].decode(), "sms": props["multiProcessorCount"], "smem": SMEM}),
          flush=True)
    # 3. steady state on 64 words (grids of many waves), 4 occupancies
    for packed in (1, 0):
        for bpsm in (8, 4, 2, 1):
            run("k_cas_count", 64, packed, 1, 1 << 21, bpsm, reps=3)
    # 4. small grids that fit the GPU at once (256 hashed words)
    for n in (4096, 16384, 65536, 262144):
        run("k_cas_count", 256, 0, 1, n, 8, reps=5)
    # 5. steady state on 256 hashed words, 4 occupancies
    for bpsm in (8, 4, 2, 1):
        run("k_cas_count", 256, 0, 1, 1 << 22, bpsm, reps=3)


if __name__ == "__main__":
    main()
