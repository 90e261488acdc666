// probe-unseen160: a structural bioinformatics / protein structure course's CUDA assignments,
// as a student who knows CUDA basics hands them in (coordinates in angstroms):
//  - contact_freq: the contact frequency map of an MD trajectory's C-alpha atoms, the
//    fraction of frames in which residues i and j lie within the cutoff (pairs less than
//    min_sep apart along the chain set to 0): a 16 x 16 block a tile of the map, a thread a
//    pair, each frame's 16 + 16 residues of the tile staged in shared memory between two
//    __syncthreads;
//  - qcp_rmsd: the RMSD of each trajectory frame to a reference after optimal superposition
//    by Theobald's quaternion characteristic polynomial (QCP) method, a warp a frame: the
//    frame's centroid by a __shfl_xor_sync butterfly, then its centred inner products with
//    the (centred) reference, 10 sums reduced by __shfl_down_sync, and lane 0 finding the
//    largest eigenvalue of the 4 x 4 key matrix by Newton-Raphson on its characteristic
//    polynomial in double;
//  - rama_hist: the Ramachandran (phi, psi) histograms of a set of PDB chains' backbones
//    (N, CA, C), 10-degree bins, one histogram a residue class (general, Gly, Pro, pre-Pro):
//    a grid-stride loop, a thread a residue, chain termini and residues next to a chain
//    break (C-N longer than 2 A) skipped, the two dihedrals by atan2f, the bin counted by a
//    shared-memory atomicAdd, the block's non-zero bins added into the global histograms;
//  - sasa_shrake_rupley: the solvent-accessible surface of each atom of a large assembly
//    (a virus capsid) by Shrake-Rupley: the atom's neighbours (expanded spheres overlapping)
//    gathered from the 27 cells of a cell list (atoms sorted by cell) into a per-thread
//    array, then each of SR_NPTS golden-spiral points of its expanded sphere (__constant__)
//    tested against them, stopping at the first that buries it;
//  - dssp_hbond: the DSSP (Kabsch-Sander) electrostatic hydrogen-bond energy of each
//    residue's N-H (the H 1 A from N along the previous residue's O->C; the N-terminus and
//    prolines have none) with
//    the C=O of every residue whose C-alpha is within 9 A, in each frame of a trajectory, a
//    thread a donor: the two best (lowest) energies and their acceptors kept as DSSP does;
//  - pb_rbsor: one red-black successive over-relaxation half-sweep of the linearised
//    Poisson-Boltzmann equation (finite differences, APBS style) in double on a 3-D grid:
//    face dielectrics (protein 2, water 78.5, harmonic means), the ion-accessibility
//    term and the atoms' charges spread on the grid, a thread a point of the sweep's
//    colour (x stepping by 2), the boundary fixed.

#define CF_TILE 16             // contact_freq: blockDim.x == blockDim.y
#define RH_BINS 36             // rama_hist: 10-degree bins a dihedral
#define RH_CLASSES 4           // general, Gly, Pro, pre-Pro
#define RH_BREAK2 4.0f         // a C(i-1)-N(i) distance^2 above this: a chain break
#define SR_NPTS 96             // sasa: test points a sphere
#define SR_MAXNB 128           // its per-thread neighbour list
#define SR_PROBE 1.4f          // water probe radius
#define DS_Q 27.888f           // dssp: 0.42 * 0.20 * 332 kcal/mol
#define DS_CA2 81.0f           // C-alpha distance^2 under which a pair is evaluated
#define DS_EMIN -9.9f          // the lowest energy DSSP keeps (and that of an overlap)

// sasa_shrake_rupley's test points (set by the host): unit vectors, point p at 3 p .. 3 p + 2
__constant__ float c_sphere[3 * SR_NPTS];

struct Residue {               // dssp_hbond: a residue's backbone atoms
    float3 n, ca, c, o;
};

__device__ float3 sub3(float3 a, float3 b) {
    return make_float3(a.x - b.x, a.y - b.y, a.z - b.z);
}

__device__ float dot3(float3 a, float3 b) {
    return a.x * b.x + a.y * b.y + a.z * b.z;
}

__device__ float3 cross3(float3 a, float3 b) {
    return make_float3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}

__device__ float3 load3(const float *p) {
    return make_float3(p[0], p[1], p[2]);
}

// the dihedral angle p0-p1-p2-p3 in degrees, (-180, 180]
__device__ float dihedral(float3 p0, float3 p1, float3 p2, float3 p3) {
    float3 b1 = sub3(p1, p0);
    float3 b2 = sub3(p2, p1);
    float3 b3 = sub3(p3, p2);
    float3 n1 = cross3(b1, b2);
    float3 n2 = cross3(b2, b3);
    float y = sqrtf(dot3(b2, b2)) * dot3(b1, n2);
    float x = dot3(n1, n2);
    return atan2f(y, x) * 57.2957795f;
}

__device__ float dist(float3 a, float3 b) {
    float3 d = sub3(a, b);
    return sqrtf(dot3(d, d));
}

extern "C" {

// xyz: frames x L x 3 C-alpha coordinates; freq[i * L + j]: the fraction of frames with
// |x_i - x_j| < cutoff (0 where |i - j| < min_sep); blockDim CF_TILE x CF_TILE
__global__ void contact_freq(const float *xyz, float *freq, int L, int frames, float cutoff, int min_sep) {
    __shared__ float si[3 * CF_TILE];
    __shared__ float sj[3 * CF_TILE];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int t = ty * CF_TILE + tx;
    int i = blockIdx.y * CF_TILE + ty;
    int j = blockIdx.x * CF_TILE + tx;
    float c2 = cutoff * cutoff;
    int count = 0;
    for (int f = 0; f < frames; f++) {
        const float *X = xyz + (long long)f * L * 3;
        if (t < 3 * CF_TILE) {
            int k = blockIdx.y * CF_TILE * 3 + t;
            si[t] = k < 3 * L ? X[k] : 0.0f;
        } else if (t < 6 * CF_TILE) {
            int k = blockIdx.x * CF_TILE * 3 + t - 3 * CF_TILE;
            sj[t - 3 * CF_TILE] = k < 3 * L ? X[k] : 0.0f;
        }
        __syncthreads();
        float dx = si[3 * ty] - sj[3 * tx];
        float dy = si[3 * ty + 1] - sj[3 * tx + 1];
        float dz = si[3 * ty + 2] - sj[3 * tx + 2];
        if (dx * dx + dy * dy + dz * dz < c2) count++;
        __syncthreads();
    }
    if (i < L && j < L) freq[i * L + j] = abs(i - j) >= min_sep ? (float)count / (float)frames : 0.0f;
}

// the largest eigenvalue of QCP's key matrix from the inner-product matrix S (row-major,
// S[3 a + b] = sum x_a y_b) by Newton-Raphson from E0 = (G_x + G_y) / 2
__device__ double qcp_lambda(const double *S, double E0) {
    double Sxx = S[0], Sxy = S[1], Sxz = S[2];
    double Syx = S[3], Syy = S[4], Syz = S[5];
    double Szx = S[6], Szy = S[7], Szz = S[8];
    double Sxx2 = Sxx * Sxx, Syy2 = Syy * Syy, Szz2 = Szz * Szz;
    double Sxy2 = Sxy * Sxy, Syz2 = Syz * Syz, Sxz2 = Sxz * Sxz;
    double Syx2 = Syx * Syx, Szy2 = Szy * Szy, Szx2 = Szx * Szx;
    double SyzSzymSyySzz2 = 2.0 * (Syz * Szy - Syy * Szz);
    double Sxx2Syy2Szz2Syz2Szy2 = Syy2 + Szz2 - Sxx2 + Syz2 + Szy2;
    double C2 = -2.0 * (Sxx2 + Syy2 + Szz2 + Sxy2 + Syx2 + Sxz2 + Szx2 + Syz2 + Szy2);
    double C1 = 8.0 * (Sxx * Syz * Szy + Syy * Szx * Sxz + Szz * Sxy * Syx - Sxx * Syy * Szz - Syz * Szx * Sxy -
                       Szy * Syx * Sxz);
    double SxzpSzx = Sxz + Szx, SyzpSzy = Syz + Szy, SxypSyx = Sxy + Syx;
    double SyzmSzy = Syz - Szy, SxzmSzx = Sxz - Szx, SxymSyx = Sxy - Syx;
    double SxxpSyy = Sxx + Syy, SxxmSyy = Sxx - Syy;
    double Sxy2Sxz2Syx2Szx2 = Sxy2 + Sxz2 - Syx2 - Szx2;
    double C0 = Sxy2Sxz2Syx2Szx2 * Sxy2Sxz2Syx2Szx2 +
                (Sxx2Syy2Szz2Syz2Szy2 + SyzSzymSyySzz2) * (Sxx2Syy2Szz2Syz2Szy2 - SyzSzymSyySzz2) +
                (-SxzpSzx * SyzmSzy + SxymSyx * (SxxmSyy - Szz)) * (-SxzmSzx * SyzpSzy + SxymSyx * (SxxmSyy + Szz)) +
                (-SxzpSzx * SyzpSzy - SxypSyx * (SxxpSyy - Szz)) * (-SxzmSzx * SyzmSzy - SxypSyx * (SxxpSyy + Szz)) +
                (SxypSyx * SyzpSzy + SxzpSzx * (SxxmSyy + Szz)) * (-SxymSyx * SyzmSzy + SxzpSzx * (SxxpSyy + Szz)) +
                (SxypSyx * SyzmSzy + SxzmSzx * (SxxmSyy - Szz)) * (-SxymSyx * SyzpSzy + SxzmSzx * (SxxpSyy - Szz));
    double lam = E0;
    for (int it = 0; it < 50; it++) {
        double old = lam;
        double x2 = lam * lam;
        double b = (x2 + C2) * lam;
        double a = b + C1;
        lam -= (a * lam + C0) / (2.0 * x2 * lam + b + a);
        if (fabs(lam - old) < fabs(1e-11 * lam)) break;
    }
    return lam;
}

// xyz: nframes x natoms x 3; ref: natoms x 3, centred, ref_g = sum |ref|^2; rmsd[f]: the
// frame's RMSD to ref after optimal superposition (a warp a frame, blockDim.x a multiple of 32)
__global__ void qcp_rmsd(const float *xyz, const float *ref, float *rmsd, int natoms, int nframes, float ref_g) {
    int f = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x & 31;
    if (f >= nframes) return;                // the whole warp
    const float *X = xyz + (long long)f * natoms * 3;
    float cx = 0.0f, cy = 0.0f, cz = 0.0f;
    for (int a = lane; a < natoms; a += 32) {
        cx += X[3 * a];
        cy += X[3 * a + 1];
        cz += X[3 * a + 2];
    }
    for (int o = 16; o > 0; o >>= 1) {
        cx += __shfl_xor_sync(0xffffffff, cx, o);
        cy += __shfl_xor_sync(0xffffffff, cy, o);
        cz += __shfl_xor_sync(0xffffffff, cz, o);
    }
    cx /= natoms;
    cy /= natoms;
    cz /= natoms;
    float m[10];
    for (int k = 0; k < 10; k++) m[k] = 0.0f;
    for (int a = lane; a < natoms; a += 32) {
        float x = X[3 * a] - cx;
        float y = X[3 * a + 1] - cy;
        float z = X[3 * a + 2] - cz;
        float rx = ref[3 * a];
        float ry = ref[3 * a + 1];
        float rz = ref[3 * a + 2];
        m[0] += x * rx;
        m[1] += x * ry;
        m[2] += x * rz;
        m[3] += y * rx;
        m[4] += y * ry;
        m[5] += y * rz;
        m[6] += z * rx;
        m[7] += z * ry;
        m[8] += z * rz;
        m[9] += x * x + y * y + z * z;
    }
    for (int k = 0; k < 10; k++)
        for (int o = 16; o > 0; o >>= 1) m[k] += __shfl_down_sync(0xffffffff, m[k], o);
    if (lane == 0) {
        double S[9];
        for (int k = 0; k < 9; k++) S[k] = m[k];
        double E0 = 0.5 * ((double)m[9] + (double)ref_g);
        double lam = qcp_lambda(S, E0);
        rmsd[f] = (float)sqrt(fabs(2.0 * (E0 - lam) / natoms));
    }
}

// bb: n residues' backbone atoms N, CA, C (9 floats a residue); chain: each residue's chain;
// cls: its class (0 general, 1 Gly, 2 Pro, 3 pre-Pro); hist[(cls * RH_BINS + phi bin) *
// RH_BINS + psi bin] += the residues with both dihedrals (a grid-stride loop)
__global__ void rama_hist(const float *bb, const int *chain, const int *cls, unsigned int *hist, int n) {
    __shared__ unsigned int h[RH_CLASSES * RH_BINS * RH_BINS];
    for (int k = threadIdx.x; k < RH_CLASSES * RH_BINS * RH_BINS; k += blockDim.x) h[k] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        if (i == 0 || i == n - 1) continue;
        int c = chain[i];
        if (chain[i - 1] != c || chain[i + 1] != c) continue;      // a terminus: no phi or no psi
        float3 cp = load3(bb + 9 * (i - 1) + 6);                   // C of the previous residue
        float3 nn = load3(bb + 9 * i);
        float3 ca = load3(bb + 9 * i + 3);
        float3 cc = load3(bb + 9 * i + 6);
        float3 nx = load3(bb + 9 * (i + 1));                       // N of the next residue
        float3 d1 = sub3(nn, cp);
        float3 d2 = sub3(nx, cc);
        if (dot3(d1, d1) > RH_BREAK2 || dot3(d2, d2) > RH_BREAK2) continue;    // missing residues
        float phi = dihedral(cp, nn, ca, cc);
        float psi = dihedral(nn, ca, cc, nx);
        int bp = min((int)((phi + 180.0f) / 10.0f), RH_BINS - 1);
        int bs = min((int)((psi + 180.0f) / 10.0f), RH_BINS - 1);
        atomicAdd(&h[(cls[i] * RH_BINS + bp) * RH_BINS + bs], 1u);
    }
    __syncthreads();
    for (int k = threadIdx.x; k < RH_CLASSES * RH_BINS * RH_BINS; k += blockDim.x)
        if (h[k] > 0) atomicAdd(&hist[k], h[k]);
}

// atom: n atoms (x, y, z, radius) sorted by cell of a ncx x ncy x ncz cell list (cell side
// `cell` from x0, y0, z0, x fastest; cell c's atoms at cell_start[c] .. cell_start[c + 1]);
// sasa[i]: atom i's accessible surface, 4 pi (r + probe)^2 x its points buried by no neighbour
__global__ void sasa_shrake_rupley(const float4 *atom, const int *cell_start, int ncx, int ncy, int ncz, float x0,
                                   float y0, float z0, float cell, float *sasa, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 a = atom[i];
    float ri = a.w + SR_PROBE;
    int cx = min(max((int)((a.x - x0) / cell), 0), ncx - 1);
    int cy = min(max((int)((a.y - y0) / cell), 0), ncy - 1);
    int cz = min(max((int)((a.z - z0) / cell), 0), ncz - 1);
    int nb[SR_MAXNB];
    int nn = 0;
    for (int z = max(cz - 1, 0); z <= min(cz + 1, ncz - 1); z++) {
        for (int y = max(cy - 1, 0); y <= min(cy + 1, ncy - 1); y++) {
            for (int x = max(cx - 1, 0); x <= min(cx + 1, ncx - 1); x++) {
                int c = (z * ncy + y) * ncx + x;
                for (int j = cell_start[c]; j < cell_start[c + 1]; j++) {
                    if (j == i) continue;
                    float4 b = atom[j];
                    float dx = b.x - a.x, dy = b.y - a.y, dz = b.z - a.z;
                    float rr = ri + b.w + SR_PROBE;
                    if (dx * dx + dy * dy + dz * dz < rr * rr && nn < SR_MAXNB) nb[nn++] = j;
                }
            }
        }
    }
    int exposed = 0;
    for (int p = 0; p < SR_NPTS; p++) {
        float px = a.x + ri * c_sphere[3 * p];
        float py = a.y + ri * c_sphere[3 * p + 1];
        float pz = a.z + ri * c_sphere[3 * p + 2];
        bool buried = false;
        for (int k = 0; k < nn; k++) {
            float4 b = atom[nb[k]];
            float dx = px - b.x, dy = py - b.y, dz = pz - b.z;
            float rj = b.w + SR_PROBE;
            if (dx * dx + dy * dy + dz * dz < rj * rj) {
                buried = true;
                break;
            }
        }
        if (!buried) exposed++;
    }
    sasa[i] = 4.0f * 3.14159265f * ri * ri * exposed / SR_NPTS;
}

// res: frames x L residues (one chain a frame); is_pro: a residue is a proline; for donor
// t = f * L + i: acc[2 t], acc[2 t + 1] its best two acceptors (-1: none) and energy[2 t],
// energy[2 t + 1] their energies in kcal/mol (0: none), the lowest first
__global__ void dssp_hbond(const struct Residue *res, const int *is_pro, int *acc, float *energy, int L,
                           int frames) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= L * frames) return;
    int f = t / L;
    int i = t - f * L;
    const struct Residue *R = res + (long long)f * L;
    int a0 = -1, a1 = -1;
    float e0 = 0.0f, e1 = 0.0f;
    if (i > 0 && !is_pro[i]) {                        // the N-terminus and prolines donate none
        float3 n = R[i].n;
        float3 co = sub3(R[i - 1].c, R[i - 1].o);
        float l = sqrtf(dot3(co, co));
        float3 h = make_float3(n.x + co.x / l, n.y + co.y / l, n.z + co.z / l);
        float3 ca = R[i].ca;
        for (int j = 0; j < L; j++) {
            if (j == i || j == i - 1) continue;
            float3 d = sub3(R[j].ca, ca);
            if (dot3(d, d) >= DS_CA2) continue;
            float3 c = R[j].c;
            float3 o = R[j].o;
            float dHO = dist(h, o), dHC = dist(h, c), dNC = dist(n, c), dNO = dist(n, o);
            float e;
            if (dHO < 0.5f || dHC < 0.5f || dNC < 0.5f || dNO < 0.5f)
                e = DS_EMIN;
            else
                e = DS_Q / dNO + DS_Q / dHC - DS_Q / dHO - DS_Q / dNC;
            e = fmaxf(e, DS_EMIN);
            if (e < e0) {
                a1 = a0;
                e1 = e0;
                a0 = j;
                e0 = e;
            } else if (e < e1) {
                a1 = j;
                e1 = e;
            }
        }
    }
    acc[2 * t] = a0;
    acc[2 * t + 1] = a1;
    energy[2 * t] = e0;
    energy[2 * t + 1] = e1;
}

// one half-sweep (colour parity: the points with (x + y + z) % 2 == parity) of red-black SOR for
// sum_faces eps_f (phi_nb - phi) - k2h2 phi + qfac q = 0 on an nx x ny x nz grid (x fastest):
// epsx[p], epsy[p], epsz[p] the dielectric of the face between p and its +x, +y, +z neighbour,
// k2h2 the ion-accessibility term (kappa-bar^2 h^2), q the charge at each point; the
// boundary points are not updated. gridDim (ceil(nx / 2 / blockDim.x), ceil(ny / blockDim.y), nz)
__global__ void pb_rbsor(double *phi, const float *epsx, const float *epsy, const float *epsz, const float *k2h2,
                         const float *q, int nx, int ny, int nz, int parity, double omega, double qfac) {
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int z = blockIdx.z;
    int x = 2 * (blockIdx.x * blockDim.x + threadIdx.x) + ((y + z + parity) & 1);
    if (x < 1 || x > nx - 2 || y < 1 || y > ny - 2 || z < 1 || z > nz - 2) return;
    int sxy = nx * ny;
    int p = (z * ny + y) * nx + x;
    double ew = epsx[p - 1], ee = epsx[p];
    double es = epsy[p - nx], en = epsy[p];
    double eb = epsz[p - sxy], et = epsz[p];
    double num = ew * phi[p - 1] + ee * phi[p + 1] + es * phi[p - nx] + en * phi[p + nx] + eb * phi[p - sxy] +
                 et * phi[p + sxy] + qfac * q[p];
    double den = ew + ee + es + en + eb + et + k2h2[p];
    phi[p] = (1.0 - omega) * phi[p] + omega * num / den;
}

}
