"""unroll/: which constant-trip loops nvcc unrolls fully, without a pragma.  Writes
sweep.cu, one kernel per (kind, trips, body), for run.sh to compile (nvcc -arch=sm_90) and
inspect (backward branches, LDL/STL in each kernel's SASS; table.py).

Kinds (k: the counter, N: trips, B: the body's size in chained operations):
- ``plain``: acc = acc * x + row[k] and B - 1 more dependent float operations a trip;
- ``sel``: moe_top2's if / else-if keeping the two largest of row[k] (B ignored);
- ``cmem``: acc += x * c_tab[k] (a __constant__ table indexed by the counter), B chained;
- ``local``: an int array H[N] in a run-time outer loop, H[k] = max(H[k] - 2, prev) + ...
  (Smith-Waterman's row), B chained integer operations a trip;
- ``brk``: ``plain`` with an early exit (``if (acc > lim) break``);
- ``call``: ``plain`` calling sinf (a library function with its own branch)."""
KINDS = ["plain", "sel", "cmem", "local", "brk", "call"]
TRIPS = [16, 32, 33, 48, 64, 96, 128, 180, 256, 512]
BODIES = [1, 4, 16, 48]


def body_f(B, v="acc"):
    s = ""
    for b in range(B - 1):
        s += f"        {v} = {v} * 1.0001f + {b + 1}.0f;\n"
    return s


def kernel(kind, N, B):
    name = f"{kind}_n{N}_b{B}"
    if kind == "plain":
        loop = f"    for (int k = 0; k < {N}; ++k) {{\n        acc = acc * x + row[k];\n{body_f(B)}    }}\n"
    elif kind == "brk":
        loop = (f"    for (int k = 0; k < {N}; ++k) {{\n        acc = acc * x + row[k];\n{body_f(B)}"
                f"        if (acc > lim) break;\n    }}\n")
    elif kind == "call":
        loop = f"    for (int k = 0; k < {N}; ++k) {{\n        acc = acc * x + sinf(row[k]);\n{body_f(B)}    }}\n"
    elif kind == "cmem":
        loop = f"    for (int k = 0; k < {N}; ++k) {{\n        acc = acc + x * c_tab[k];\n{body_f(B)}    }}\n"
    elif kind == "sel":
        loop = (f"    float b1 = -1e30f, b2 = -1e30f; int i1 = 0, i2 = 0;\n"
                f"    for (int k = 0; k < {N}; ++k) {{\n        float v = row[k];\n"
                f"        if (v > b1) {{ b2 = b1; i2 = i1; b1 = v; i1 = k; }}\n"
                f"        else if (v > b2) {{ b2 = v; i2 = k; }}\n    }}\n"
                f"    acc = b1 + b2 + i1 * 7 + i2;\n")
    else:   # local
        ops = "".join(f"            h = (h ^ {b + 3}) + {b + 1};\n" for b in range(B - 1))
        loop = (f"    int H[{N}];\n    for (int k = 0; k < {N}; ++k) H[k] = 0;\n"
                f"    int best = 0;\n    for (int r = 0; r < rows; ++r) {{\n        int prev = 0, q = (int)row[r];\n"
                f"        for (int k = 0; k < {N}; ++k) {{\n            int h = max(H[k] - 2, prev) + ((q + k) & 3);\n"
                f"{ops}            prev = H[k];\n            H[k] = h;\n            best = max(best, h);\n        }}\n    }}\n"
                f"    acc = (float)best;\n")
    return (f"extern \"C\" __global__ void {name}(const float *in, float *out, float x, float lim, int rows) {{\n"
            f"    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    const float *row = in + i * 1024;\n"
            f"    float acc = 0.0f;\n{loop}    out[i] = acc;\n}}\n")


if __name__ == "__main__":
    src = "__constant__ float c_tab[512];\n\n"
    for kind in KINDS:
        for N in TRIPS:
            for B in (BODIES if kind != "sel" else [1]):
                src += kernel(kind, N, B) + "\n"
    open("sweep.cu", "w").write(src)
