// probe-unseen129: a structural-engineering / finite-element course's CUDA assignments, as a
// student who knows CUDA basics hands them in:
//  - q4_internal_force: the matrix-free product f = K u of a plane-stress mesh of bilinear
//    quadrilaterals (Q4), a thread an element: the element's 4 nodes gathered through the
//    connectivity, 2 x 2 Gauss points each a Jacobian, the shape functions' derivatives,
//    strains, stresses (isotropic plane stress) and B^T sigma, the element's 8 nodal forces
//    assembled into the global vector by atomicAdd (neighbouring elements share nodes);
//  - csr_spmv: y = K x of an assembled stiffness matrix in CSR (the sparsity of a Q4
//    plane-stress mesh: 2 dofs a node, up to 18 nonzeros a row), a thread a row;
//  - pcg_update: one Jacobi-preconditioned conjugate-gradient update, x += alpha p, r -=
//    alpha q, z = r / diag(K), and the block's share of r . z by a shared-memory tree
//    reduction, added to the global dot product by one atomicAdd a block;
//  - truss_member_check: the post-processing of a 2-D truss, a thread a member: its end
//    nodes' coordinates and displacements gathered, the axial strain, stress and force,
//    then a design check: tension members against the yield capacity, compression members
//    against a buckling curve (Euler load, slenderness, imperfection factor), the member's
//    utilization stored;
//  - beam_superposition: the deflection and bending moment of a simply supported beam
//    under BEAM_TILE-tiled point loads (a train of wheel loads) by superposition, a thread
//    an evaluation point, the loads staged in shared memory tile by tile;
//  - vonmises_hist: the von Mises stress of every Gauss point from its six stress
//    components (SoA), binned into VM_BINS bins of [0, smax) (the last one also taking
//    what lies beyond) in a shared-memory histogram a block, in a grid-stride loop, the
//    block's counts added to the global histogram at the end.

#define PCG_BLOCK 256        // pcg_update: threads a block (the reduction's shared array)
#define BEAM_TILE 256        // beam_superposition: loads a tile (blockDim.x == BEAM_TILE)
#define VM_BINS 64           // vonmises_hist: the histogram's bins
#define PI_F 3.14159265f

extern "C" {

// f += K u for a plane-stress mesh of Q4 elements (conn: 4 nodes an element,
// counter-clockwise; xy and u: 2 floats a node), thickness t, Young's modulus E, Poisson's
// ratio nu; f must be zeroed before the launch
__global__ void q4_internal_force(const float *xy, const float *u, const int *conn, float *f, float E, float nu,
                                  float t, int nelem) {
    int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= nelem) return;

    int node[4];
    float X[4], Y[4], ue[8], fe[8];
    for (int a = 0; a < 4; a++) {
        node[a] = conn[4 * e + a];
        X[a] = xy[2 * node[a]];
        Y[a] = xy[2 * node[a] + 1];
        ue[2 * a] = u[2 * node[a]];
        ue[2 * a + 1] = u[2 * node[a] + 1];
        fe[2 * a] = 0.0f;
        fe[2 * a + 1] = 0.0f;
    }

    // plane-stress elasticity matrix
    float c = E / (1.0f - nu * nu);
    float D11 = c;
    float D12 = c * nu;
    float D33 = c * (1.0f - nu) * 0.5f;

    const float g = 0.577350269f;     // 1 / sqrt(3), the Gauss points (weights 1)
    for (int gp = 0; gp < 4; gp++) {
        float xi = (gp & 1) ? g : -g;
        float eta = (gp & 2) ? g : -g;
        float dNdxi[4] = {-0.25f * (1.0f - eta), 0.25f * (1.0f - eta), 0.25f * (1.0f + eta), -0.25f * (1.0f + eta)};
        float dNdeta[4] = {-0.25f * (1.0f - xi), -0.25f * (1.0f + xi), 0.25f * (1.0f + xi), 0.25f * (1.0f - xi)};

        // the Jacobian of (xi, eta) -> (x, y)
        float J11 = 0.0f, J12 = 0.0f, J21 = 0.0f, J22 = 0.0f;
        for (int a = 0; a < 4; a++) {
            J11 += dNdxi[a] * X[a];
            J12 += dNdxi[a] * Y[a];
            J21 += dNdeta[a] * X[a];
            J22 += dNdeta[a] * Y[a];
        }
        float detJ = J11 * J22 - J12 * J21;
        float inv = 1.0f / detJ;

        float dNdx[4], dNdy[4];
        for (int a = 0; a < 4; a++) {
            dNdx[a] = (J22 * dNdxi[a] - J12 * dNdeta[a]) * inv;
            dNdy[a] = (-J21 * dNdxi[a] + J11 * dNdeta[a]) * inv;
        }

        // strains, stresses
        float exx = 0.0f, eyy = 0.0f, gxy = 0.0f;
        for (int a = 0; a < 4; a++) {
            exx += dNdx[a] * ue[2 * a];
            eyy += dNdy[a] * ue[2 * a + 1];
            gxy += dNdy[a] * ue[2 * a] + dNdx[a] * ue[2 * a + 1];
        }
        float sxx = D11 * exx + D12 * eyy;
        float syy = D12 * exx + D11 * eyy;
        float sxy = D33 * gxy;

        // fe += B^T sigma detJ t
        float w = detJ * t;
        for (int a = 0; a < 4; a++) {
            fe[2 * a] += w * (dNdx[a] * sxx + dNdy[a] * sxy);
            fe[2 * a + 1] += w * (dNdy[a] * syy + dNdx[a] * sxy);
        }
    }

    // assembly: nodes are shared with the neighbouring elements
    for (int a = 0; a < 4; a++) {
        atomicAdd(&f[2 * node[a]], fe[2 * a]);
        atomicAdd(&f[2 * node[a] + 1], fe[2 * a + 1]);
    }
}

// y = K x, K in CSR (row_ptr, col_idx, val), a thread a row
__global__ void csr_spmv(const int *row_ptr, const int *col_idx, const float *val, const float *x, float *y,
                         int nrows) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < nrows) {
        float sum = 0.0f;
        for (int k = row_ptr[row]; k < row_ptr[row + 1]; k++) {
            sum += val[k] * x[col_idx[k]];
        }
        y[row] = sum;
    }
}

// one PCG update with the Jacobi preconditioner: x += alpha p, r -= alpha q (q = K p),
// z = r / diag; *rz += r . z (zeroed before the launch); blockDim.x == PCG_BLOCK
__global__ void pcg_update(float *x, float *r, float *z, const float *p, const float *q, const float *diag,
                           float alpha, float *rz, int n) {
    __shared__ float partial[PCG_BLOCK];
    int tid = threadIdx.x;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = 0.0f;
    if (i < n) {
        x[i] = x[i] + alpha * p[i];
        float ri = r[i] - alpha * q[i];
        r[i] = ri;
        float zi = ri / diag[i];
        z[i] = zi;
        v = ri * zi;
    }
    partial[tid] = v;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) partial[tid] += partial[tid + s];
        __syncthreads();
    }
    if (tid == 0) atomicAdd(rz, partial[0]);
}

// a 2-D truss's members (ends: node pairs; area: cross sections) at the nodal coordinates
// xy and displacements u (float2 a node): the axial force and stress of each member, and
// its utilization |N| / capacity, the capacity A fy in tension and chi A fy in compression
// (a solid round bar, I = A^2 / (4 pi); the buckling curve's imperfection factor alpha)
__global__ void truss_member_check(const int2 *ends, const float *area, const float2 *xy, const float2 *u,
                                   float E, float fy, float alpha, float *force, float *stress, float *util,
                                   int nmem) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= nmem) return;
    int2 nd = ends[k];
    float2 a = xy[nd.x];
    float2 b = xy[nd.y];
    float2 ua = u[nd.x];
    float2 ub = u[nd.y];
    float dx = b.x - a.x;
    float dy = b.y - a.y;
    float L = sqrtf(dx * dx + dy * dy);
    float cx = dx / L;
    float cy = dy / L;
    float elong = cx * (ub.x - ua.x) + cy * (ub.y - ua.y);
    float sig = E * elong / L;
    float A = area[k];
    float N = sig * A;

    float cap;
    if (N >= 0.0f) {
        cap = A * fy;                                       // tension: yielding
    } else {
        float I = A * A / (4.0f * PI_F);                    // compression: flexural buckling
        float Ncr = PI_F * PI_F * E * I / (L * L);
        float lam = sqrtf(A * fy / Ncr);
        float chi = 1.0f;
        if (lam > 0.2f) {
            float phi = 0.5f * (1.0f + alpha * (lam - 0.2f) + lam * lam);
            chi = 1.0f / (phi + sqrtf(phi * phi - lam * lam));
            if (chi > 1.0f) chi = 1.0f;
        }
        cap = chi * A * fy;
    }
    force[k] = N;
    stress[k] = sig;
    util[k] = fabsf(N) / cap;
}

// the deflection (downwards positive) and bending moment at n points x_i = (i + 0.5) L / n
// of a simply supported beam of length L and stiffness EI under nloads point loads
// (loads: (position a, magnitude P) pairs), by superposition; blockDim.x == BEAM_TILE
__global__ void beam_superposition(const float2 *loads, int nloads, float L, float EI, float *defl, float *moment,
                                   int n) {
    __shared__ float2 tile[BEAM_TILE];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float x = (i + 0.5f) * (L / n);
    float w = 0.0f;
    float M = 0.0f;
    for (int t0 = 0; t0 < nloads; t0 += BEAM_TILE) {
        if (t0 + threadIdx.x < nloads) tile[threadIdx.x] = loads[t0 + threadIdx.x];
        __syncthreads();
        int cnt = min(BEAM_TILE, nloads - t0);
        for (int j = 0; j < cnt; j++) {
            float a = tile[j].x;
            float P = tile[j].y;
            float b = L - a;
            if (x <= a) {
                w += P * b * x * (L * L - b * b - x * x);
                M += P * b * x;
            } else {
                w += P * a * (L - x) * (2.0f * L * x - x * x - a * a);
                M += P * a * (L - x);
            }
        }
        __syncthreads();
    }
    if (i < n) {
        defl[i] = w / (6.0f * L * EI);
        moment[i] = M / L;
    }
}

// the von Mises stress of n Gauss points (stress components SoA) binned into VM_BINS bins
// of width smax / VM_BINS (the last bin also for sigma_vm >= smax) into hist (zeroed)
__global__ void vonmises_hist(const float *sxx, const float *syy, const float *szz, const float *sxy,
                              const float *syz, const float *szx, unsigned int *hist, float smax, int n) {
    __shared__ unsigned int sh[VM_BINS];
    for (int b = threadIdx.x; b < VM_BINS; b += blockDim.x) sh[b] = 0;
    __syncthreads();

    float scale = VM_BINS / smax;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        float a = sxx[i];
        float b = syy[i];
        float c = szz[i];
        float t1 = sxy[i];
        float t2 = syz[i];
        float t3 = szx[i];
        float vm = sqrtf(0.5f * ((a - b) * (a - b) + (b - c) * (b - c) + (c - a) * (c - a)) +
                         3.0f * (t1 * t1 + t2 * t2 + t3 * t3));
        int bin = (int)(vm * scale);
        if (bin >= VM_BINS) bin = VM_BINS - 1;
        atomicAdd(&sh[bin], 1u);
    }
    __syncthreads();

    for (int b = threadIdx.x; b < VM_BINS; b += blockDim.x) {
        if (sh[b] > 0) atomicAdd(&hist[b], sh[b]);
    }
}

}
