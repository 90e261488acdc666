// probe-unseen190: a computational quantum chemistry course's CUDA assignments, as a student
// who knows CUDA basics hands them in:
//  - boys_function: the Boys function F_m(T) = int_0^1 t^2m exp(-T t^2) dt for m = 0 .. BOYS_MMAX
//    of many arguments T (those of an integral batch's shell quartets), a thread a T: for
//    T < BOYS_TSWITCH the highest order by its series (a loop of a float division a term until
//    the terms no longer count) and the lower ones by the downward recursion, else the
//    asymptotic F_0 and the upward recursion; the orders kept in a per-thread array;
//  - gto_overlap_kinetic: the overlap and kinetic-energy integrals of every pair of primitive
//    Cartesian Gaussians (s, p, d) of a water cluster's 6-31G* basis, a thread a pair (i, j) on
//    a 2-D grid of 16 x 16 blocks, the primitives an array of structs: the 1-D overlaps by the
//    Obara-Saika recurrence in per-thread arrays (up to 3 x 5 per axis), the kinetic integrals
//    from them; pairs whose Gaussian product prefactor is negligible written as 0;
//  - sad_density: the superposition-of-atomic-densities guess density on the molecular
//    quadrature grid, a thread a grid point: for each atom within its cut-off radius, its
//    contracted shells' basis functions (centres, exponents and coefficients gathered by
//    index) evaluated into a per-thread array and the atom's density-matrix block's quadratic
//    form in them added;
//  - coulomb_j: the Coulomb matrix J_p = sum_q (p|q) D_q over basis-function pairs p, q from a
//    Schwarz-screened list of the unique two-electron integrals (p >= q, row-major, uneven
//    rows), a thread an integral: both of its contributions by atomicAdd (J_p contended by a
//    row's integrals, J_q scattered), the pairs' densities gathered;
//  - becke_weights: Becke's fuzzy-cell partition weights (with Becke's atomic size
//    adjustments) of the atom-centred quadrature grid points, a thread a point: the atoms and
//    their pairs' inverse distances and size parameters staged in shared memory by each block,
//    then for every atom the product of the cell function (three iterations of a cubic) over
//    all other atoms, each pair's distances by sqrtf;
//  - mp2_energy: the closed-shell MP2 correlation energy sum (ia|jb) [2 (ia|jb) - (ib|ja)] /
//    (e_i + e_j - e_a - e_b) over the active occupied and virtual orbitals in double, a thread
//    a term (the exchange integral gathered at a transposed index), the orbital energies in
//    __constant__ memory (indexed by a, b: different addresses across a warp), a shared-memory
//    tree reduction a block into one partial sum a block.

#define BOYS_MMAX 8              // boys_function: orders 0 .. BOYS_MMAX (up to (gg|gg)-type quartets)
#define BOYS_TSWITCH 30.0f       // the asymptotic form at and above this T
#define OK_CUT 30.0f             // gto_overlap_kinetic: pairs with mu R^2 above this are 0
#define OK_LMAX 2                // up to d primitives
#define SAD_MAXF 15              // sad_density: basis functions on an atom (O in 6-31G*: 15)
#define BK_MAXAT 64              // becke_weights: atoms at most (staged in shared memory)
#define MP2_MAXOCC 64            // mp2_energy: active occupied orbitals at most
#define MP2_MAXVIR 512           // virtual orbitals at most
#define MP2_BLOCK 256            // blockDim.x

// a primitive Cartesian Gaussian x^lx y^ly z^lz exp(-alpha r^2) about (x, y, z) (bohr)
struct Prim {
    float x, y, z, alpha;
    int lx, ly, lz, atom;
};

// mp2_energy's orbital energies (hartree, set by the host)
__constant__ double c_eocc[MP2_MAXOCC];
__constant__ double c_evir[MP2_MAXVIR];

// the 1-D overlaps S[i][j] of x_A^i exp(-a x_A^2) and x_B^j exp(-b x_B^2) for i <= la, j <= lb2
// by the Obara-Saika recurrence (PA, PB: the product centre's offsets from A and B)
__device__ void os_overlap_1d(float S[OK_LMAX + 1][OK_LMAX + 3], float PA, float PB, float inv2p, float s00,
                              int la, int lb2) {
    S[0][0] = s00;
    for (int j = 1; j <= lb2; j++) {
        float v = PB * S[0][j - 1];
        if (j > 1) v += (j - 1) * inv2p * S[0][j - 2];
        S[0][j] = v;
    }
    for (int i = 1; i <= la; i++) {
        for (int j = 0; j <= lb2; j++) {
            float v = PA * S[i - 1][j];
            if (i > 1) v += (i - 1) * inv2p * S[i - 2][j];
            if (j > 0) v += j * inv2p * S[i - 1][j - 1];
            S[i][j] = v;
        }
    }
}

// the 1-D kinetic integral <i| -1/2 d^2/dx^2 |j> from the 1-D overlaps (b: the ket's exponent)
__device__ float kinetic_1d(float S[OK_LMAX + 1][OK_LMAX + 3], int i, int j, float b) {
    float t = b * (2 * j + 1) * S[i][j] - 2.0f * b * b * S[i][j + 2];
    if (j > 1) t -= 0.5f * j * (j - 1) * S[i][j - 2];
    return t;
}

extern "C" {

// F[i * (BOYS_MMAX + 1) + m] = F_m(T[i]) for m = 0 .. BOYS_MMAX, i < n
__global__ void boys_function(const float *T, float *F, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float t = T[i];
    float et = expf(-t);
    float f[BOYS_MMAX + 1];
    if (t < BOYS_TSWITCH) {
        // F_M(T) = e^-T sum_k (2T)^k / ((2M + 1)(2M + 3) ... (2M + 2k + 1))
        float term = 1.0f / (2 * BOYS_MMAX + 1);
        float sum = term;
        for (int k = 1; k < 200; k++) {
            term *= 2.0f * t / (2 * BOYS_MMAX + 2 * k + 1);
            sum += term;
            if (term < 1e-8f * sum) break;
        }
        f[BOYS_MMAX] = et * sum;
        // downward: F_m = (2T F_{m+1} + e^-T) / (2m + 1), stable
        for (int m = BOYS_MMAX - 1; m >= 0; m--) f[m] = (2.0f * t * f[m + 1] + et) / (2 * m + 1);
    } else {
        // F_0 = sqrt(pi / T) / 2 (erf(sqrt T) = 1 in float), upward: F_{m+1} = ((2m + 1) F_m - e^-T) / 2T
        f[0] = 0.5f * sqrtf(3.14159265f / t);
        for (int m = 0; m < BOYS_MMAX; m++) f[m + 1] = ((2 * m + 1) * f[m] - et) / (2.0f * t);
    }
    for (int m = 0; m <= BOYS_MMAX; m++) F[i * (BOYS_MMAX + 1) + m] = f[m];
}

// S[i * nf + j], T[i * nf + j]: the overlap and kinetic-energy integrals of primitives i and j
// (blockDim 16 x 16, x along j)
__global__ void gto_overlap_kinetic(const Prim *prim, float *S, float *T, int nf) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= nf || j >= nf) return;
    Prim A = prim[i];
    Prim B = prim[j];
    float a = A.alpha;
    float b = B.alpha;
    float p = a + b;
    float mu = a * b / p;
    float dx = A.x - B.x;
    float dy = A.y - B.y;
    float dz = A.z - B.z;
    float s = 0.0f;
    float t = 0.0f;
    if (mu * (dx * dx + dy * dy + dz * dz) < OK_CUT) {
        float px = (a * A.x + b * B.x) / p;
        float py = (a * A.y + b * B.y) / p;
        float pz = (a * A.z + b * B.z) / p;
        float inv2p = 0.5f / p;
        float root = sqrtf(3.14159265f / p);
        float Sx[OK_LMAX + 1][OK_LMAX + 3];
        float Sy[OK_LMAX + 1][OK_LMAX + 3];
        float Sz[OK_LMAX + 1][OK_LMAX + 3];
        os_overlap_1d(Sx, px - A.x, px - B.x, inv2p, root * expf(-mu * dx * dx), A.lx, B.lx + 2);
        os_overlap_1d(Sy, py - A.y, py - B.y, inv2p, root * expf(-mu * dy * dy), A.ly, B.ly + 2);
        os_overlap_1d(Sz, pz - A.z, pz - B.z, inv2p, root * expf(-mu * dz * dz), A.lz, B.lz + 2);
        float sx = Sx[A.lx][B.lx];
        float sy = Sy[A.ly][B.ly];
        float sz = Sz[A.lz][B.lz];
        s = sx * sy * sz;
        t = kinetic_1d(Sx, A.lx, B.lx, b) * sy * sz + sx * kinetic_1d(Sy, A.ly, B.ly, b) * sz +
            sx * sy * kinetic_1d(Sz, A.lz, B.lz, b);
    }
    S[i * nf + j] = s;
    T[i * nf + j] = t;
}

// rho[i] = sum over atoms A with |r_i - R_A|^2 < rcut2[A] of phi_A(r_i)^T D_A phi_A(r_i): atom A's
// shells sh_off[A] .. sh_off[A + 1] - 1 (angular momentum sh_l, primitives sh_p0 .. sh_p0 + sh_np - 1
// of exponents ex and coefficients cf), its functions s; x y z; xx xy xz yy yz zz in shell order,
// D_A row-major at dm + dm_off[A]
__global__ void sad_density(const float *px, const float *py, const float *pz, const float *ax, const float *ay,
                            const float *az, const float *rcut2, const int *sh_off, const int *sh_l,
                            const int *sh_p0, const int *sh_np, const float *ex, const float *cf, const int *dm_off,
                            const float *dm, float *rho, int natom, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = px[i];
    float y = py[i];
    float z = pz[i];
    float phi[SAD_MAXF];
    float r = 0.0f;
    for (int A = 0; A < natom; A++) {
        float dx = x - ax[A];
        float dy = y - ay[A];
        float dz = z - az[A];
        float r2 = dx * dx + dy * dy + dz * dz;
        if (r2 >= rcut2[A]) continue;
        int nf = 0;
        for (int s = sh_off[A]; s < sh_off[A + 1]; s++) {
            float R = 0.0f;
            for (int k = sh_p0[s]; k < sh_p0[s] + sh_np[s]; k++) R += cf[k] * expf(-ex[k] * r2);
            int l = sh_l[s];
            if (l == 0) {
                phi[nf++] = R;
            } else if (l == 1) {
                phi[nf++] = dx * R;
                phi[nf++] = dy * R;
                phi[nf++] = dz * R;
            } else {
                phi[nf++] = dx * dx * R;
                phi[nf++] = dx * dy * R;
                phi[nf++] = dx * dz * R;
                phi[nf++] = dy * dy * R;
                phi[nf++] = dy * dz * R;
                phi[nf++] = dz * dz * R;
            }
        }
        const float *D = dm + dm_off[A];
        for (int u = 0; u < nf; u++) {
            float t = 0.0f;
            for (int v = 0; v < nf; v++) t += D[u * nf + v] * phi[v];
            r += phi[u] * t;
        }
    }
    rho[i] = r;
}

// J[p] += eri[e] D[q] and, for q != p, J[q] += eri[e] D[p] for each listed integral e = (p|q),
// e < nnz (D with the off-diagonal pairs' densities doubled)
__global__ void coulomb_j(const int *bra, const int *ket, const float *eri, const float *D, float *J, int nnz) {
    int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= nnz) return;
    int p = bra[e];
    int q = ket[e];
    float v = eri[e];
    atomicAdd(&J[p], v * D[q]);
    if (q != p) atomicAdd(&J[q], v * D[p]);
}

// w[i] = wq[i] P_own(r_i) / sum_A P_A(r_i) with P_A = prod_{B != A} s(nu_AB), nu_AB = mu_AB + a_AB
// (1 - mu_AB^2), mu_AB = (|r - R_A| - |r - R_B|) / R_AB, s = (1 - f(f(f(nu)))) / 2, f(x) = 1.5 x - 0.5
// x^3; a_AB from the atoms' radii rad (Becke 1988), own = owner[i]; natom <= BK_MAXAT
__global__ void becke_weights(const float *px, const float *py, const float *pz, const int *owner, const float *wq,
                              const float *ax, const float *ay, const float *az, const float *rad, float *w,
                              int natom, int n) {
    __shared__ float sx[BK_MAXAT];
    __shared__ float sy[BK_MAXAT];
    __shared__ float sz[BK_MAXAT];
    __shared__ float invR[BK_MAXAT][BK_MAXAT];
    __shared__ float aAB[BK_MAXAT][BK_MAXAT];
    for (int k = threadIdx.x; k < natom; k += blockDim.x) {
        sx[k] = ax[k];
        sy[k] = ay[k];
        sz[k] = az[k];
    }
    __syncthreads();
    for (int k = threadIdx.x; k < natom * natom; k += blockDim.x) {
        int A = k / natom;
        int B = k % natom;
        float inv = 0.0f;
        float a = 0.0f;
        if (A != B) {
            float dx = sx[A] - sx[B];
            float dy = sy[A] - sy[B];
            float dz = sz[A] - sz[B];
            inv = 1.0f / sqrtf(dx * dx + dy * dy + dz * dz);
            float chi = rad[A] / rad[B];
            float u = (chi - 1.0f) / (chi + 1.0f);
            a = u / (u * u - 1.0f);
            a = fminf(fmaxf(a, -0.5f), 0.5f);
        }
        invR[A][B] = inv;
        aAB[A][B] = a;
    }
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = px[i];
    float y = py[i];
    float z = pz[i];
    int own = owner[i];
    float sum = 0.0f;
    float pown = 0.0f;
    for (int A = 0; A < natom; A++) {
        float rA = sqrtf((x - sx[A]) * (x - sx[A]) + (y - sy[A]) * (y - sy[A]) + (z - sz[A]) * (z - sz[A]));
        float P = 1.0f;
        for (int B = 0; B < natom; B++) {
            if (B == A) continue;
            float rB = sqrtf((x - sx[B]) * (x - sx[B]) + (y - sy[B]) * (y - sy[B]) + (z - sz[B]) * (z - sz[B]));
            float mu = (rA - rB) * invR[A][B];
            float f = mu + aAB[A][B] * (1.0f - mu * mu);
            f = 1.5f * f - 0.5f * f * f * f;
            f = 1.5f * f - 0.5f * f * f * f;
            f = 1.5f * f - 0.5f * f * f * f;
            P *= 0.5f * (1.0f - f);
        }
        sum += P;
        if (A == own) pown = P;
    }
    w[i] = wq[i] * pown / sum;
}

// partial[blockIdx.x] = the block's terms of E2 = sum over i, j < no, a, b < nv of (ia|jb) [2 (ia|jb) -
// (ib|ja)] / (e_i + e_j - e_a - e_b), (ia|jb) at iajb[((i * nv + a) * no + j) * nv + b], a thread a term
// (blockDim.x == MP2_BLOCK)
__global__ void mp2_energy(const double *iajb, double *partial, int no, int nv) {
    __shared__ double s[MP2_BLOCK];
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    double e = 0.0;
    if (t < no * nv * no * nv) {
        int b = t % nv;
        int r = t / nv;
        int j = r % no;
        r /= no;
        int a = r % nv;
        int i = r / nv;
        double K = iajb[t];
        double Kx = iajb[((i * nv + b) * no + j) * nv + a];
        e = K * (2.0 * K - Kx) / (c_eocc[i] + c_eocc[j] - c_evir[a] - c_evir[b]);
    }
    s[threadIdx.x] = e;
    __syncthreads();
    for (int st = blockDim.x / 2; st > 0; st >>= 1) {
        if (threadIdx.x < st) s[threadIdx.x] += s[threadIdx.x + st];
        __syncthreads();
    }
    if (threadIdx.x == 0) partial[blockIdx.x] = s[0];
}

}
