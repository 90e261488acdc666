// probe-unseen74: a computational-fluid-dynamics course's CUDA assignments, as a student
// who knows CUDA basics hands them in: a lattice-Boltzmann D2Q9 step (pull streaming from
// a periodic channel with the populations stored cell by cell, f[cell * 9 + q], then BGK
// collision, solid cells of a cylinder and the channel walls bouncing their populations
// back), a thread a cell; 2-D advection of a scalar by a given velocity field in flux
// form, the face values upwinded by the sign of the face velocity with minmod-limited
// slopes (MUSCL), periodic with % wrap, a thread a cell; one colour's half-sweep of
// red-black SOR for the pressure Poisson equation, a thread a cell of the whole grid (the
// other colour's threads and the Dirichlet boundary return at once); an explicit step of
// the 3-D heat equation, a 7-point stencil on a block's tile staged in shared memory with
// a one-cell halo loaded by the tile's edge threads; passive tracer particles advected by
// a midpoint (RK2) step, the velocity bilinearly interpolated from a periodic grid at
// random positions; and the CFL time step of a 2-D compressible Euler solver, each cell's
// (|u| + c) / dx + (|v| + c) / dy maximized over a block by a shared-memory tree and over
// the grid by one atomicMax a block on the float's bits (positive floats order as ints).

#define HX 32                 // heat3d_smem: blockDim == (HX, HY, HZ)
#define HY 4
#define HZ 4
#define CFL_BLOCK 256         // cfl_max: blockDim.x == CFL_BLOCK

// D2Q9 lattice: velocities, weights, and each direction's opposite
__constant__ int c_ex[9] = {0, 1, 0, -1, 0, 1, -1, -1, 1};
__constant__ int c_ey[9] = {0, 0, 1, 0, -1, 1, 1, -1, -1};
__constant__ float c_w[9] = {4.0f / 9.0f, 1.0f / 9.0f, 1.0f / 9.0f, 1.0f / 9.0f, 1.0f / 9.0f,
                             1.0f / 36.0f, 1.0f / 36.0f, 1.0f / 36.0f, 1.0f / 36.0f};
__constant__ int c_opp[9] = {0, 3, 4, 1, 2, 7, 8, 5, 6};

extern "C" {

// one D2Q9 step on an nx x ny periodic lattice (f_in, f_out: 9 floats a cell, cell y * nx
// + x): population q streams in from the neighbour (x - ex[q], y - ey[q]); a fluid cell
// relaxes towards equilibrium at rate omega, a solid one sends each population back the
// way it came
__global__ void lbm_d2q9_aos(const float *f_in, float *f_out, const unsigned char *solid, float omega, int nx,
                             int ny) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= nx || y >= ny) return;
    int cell = y * nx + x;
    float f[9];
    for (int q = 0; q < 9; q++) {
        int xs = (x - c_ex[q] + nx) % nx;
        int ys = (y - c_ey[q] + ny) % ny;
        f[q] = f_in[(ys * nx + xs) * 9 + q];
    }
    if (solid[cell]) {
        for (int q = 0; q < 9; q++) f_out[cell * 9 + c_opp[q]] = f[q];
        return;
    }
    float rho = 0.0f;
    float ux = 0.0f;
    float uy = 0.0f;
    for (int q = 0; q < 9; q++) {
        rho += f[q];
        ux += c_ex[q] * f[q];
        uy += c_ey[q] * f[q];
    }
    ux /= rho;
    uy /= rho;
    float usq = 1.5f * (ux * ux + uy * uy);
    for (int q = 0; q < 9; q++) {
        float eu = 3.0f * (c_ex[q] * ux + c_ey[q] * uy);
        float feq = c_w[q] * rho * (1.0f + eu + 0.5f * eu * eu - usq);
        f_out[cell * 9 + q] = f[q] + omega * (feq - f[q]);
    }
}

// minmod slope limiter
__device__ float minmod(float a, float b) {
    if (a * b <= 0.0f) return 0.0f;
    return fabsf(a) < fabsf(b) ? a : b;
}

// the value at the face between cells c and r (l left of c, rr right of r), taken from
// the upwind side with a limited linear reconstruction
__device__ float face_value(float l, float c, float r, float rr, float vel) {
    if (vel > 0.0f) {
        return c + 0.5f * minmod(c - l, r - c);
    } else {
        return r - 0.5f * minmod(r - c, rr - r);
    }
}

// one forward-Euler step of q_t + (u q)_x + (v q)_y = 0 on an nx x ny periodic grid (row
// j, column i), u and v cell-centred (averaged onto the faces); cx = dt / dx, cy = dt / dy
__global__ void advect_muscl(const float *q, const float *u, const float *v, float *q_new, float cx, float cy,
                             int nx, int ny) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= nx || j >= ny) return;
    int im1 = (i - 1 + nx) % nx;
    int im2 = (i - 2 + nx) % nx;
    int ip1 = (i + 1) % nx;
    int ip2 = (i + 2) % nx;
    int jm1 = (j - 1 + ny) % ny;
    int jm2 = (j - 2 + ny) % ny;
    int jp1 = (j + 1) % ny;
    int jp2 = (j + 2) % ny;
    int k = j * nx + i;

    float qc = q[k];
    float qw = q[j * nx + im1];
    float qww = q[j * nx + im2];
    float qe = q[j * nx + ip1];
    float qee = q[j * nx + ip2];
    float qs = q[jm1 * nx + i];
    float qss = q[jm2 * nx + i];
    float qn = q[jp1 * nx + i];
    float qnn = q[jp2 * nx + i];

    float ue = 0.5f * (u[k] + u[j * nx + ip1]);
    float uw = 0.5f * (u[j * nx + im1] + u[k]);
    float vn = 0.5f * (v[k] + v[jp1 * nx + i]);
    float vs = 0.5f * (v[jm1 * nx + i] + v[k]);

    float flux_e = ue * face_value(qw, qc, qe, qee, ue);
    float flux_w = uw * face_value(qww, qw, qc, qe, uw);
    float flux_n = vn * face_value(qs, qc, qn, qnn, vn);
    float flux_s = vs * face_value(qss, qs, qc, qn, vs);

    q_new[k] = qc - cx * (flux_e - flux_w) - cy * (flux_n - flux_s);
}

// one colour's half-sweep of red-black SOR for lap(p) = rhs on an nx x ny grid of spacing
// h (h2 = h * h), the boundary rows and columns fixed (Dirichlet): the cells with (i + j)
// % 2 == color are over-relaxed by omega in place, reading only the other colour
__global__ void sor_redblack(float *p, const float *rhs, float omega, float h2, int color, int nx, int ny) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < 1 || j < 1 || i >= nx - 1 || j >= ny - 1) return;
    if ((i + j) % 2 != color) return;
    int k = j * nx + i;
    float gs = 0.25f * (p[k - 1] + p[k + 1] + p[k - nx] + p[k + nx] - h2 * rhs[k]);
    p[k] = p[k] + omega * (gs - p[k]);
}

// one explicit step of T_t = lap(T) on an nx x ny x nz grid (x fastest), alpha = dt / h^2,
// the boundary faces held fixed: a block stages its HX x HY x HZ tile and a one-cell halo
// (no corners) in shared memory, the edge threads loading the halo
__global__ void heat3d_smem(const float *T, float *T_new, float alpha, int nx, int ny, int nz) {
    __shared__ float s[HZ + 2][HY + 2][HX + 2];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int tz = threadIdx.z;
    int i = blockIdx.x * HX + tx;
    int j = blockIdx.y * HY + ty;
    int k = blockIdx.z * HZ + tz;
    int sx = tx + 1;
    int sy = ty + 1;
    int sz = tz + 1;
    bool inside = i < nx && j < ny && k < nz;
    int idx = (k * ny + j) * nx + i;
    if (inside) {
        s[sz][sy][sx] = T[idx];
        if (tx == 0 && i > 0) s[sz][sy][0] = T[idx - 1];
        if (tx == HX - 1 && i < nx - 1) s[sz][sy][HX + 1] = T[idx + 1];
        if (ty == 0 && j > 0) s[sz][0][sx] = T[idx - nx];
        if (ty == HY - 1 && j < ny - 1) s[sz][HY + 1][sx] = T[idx + nx];
        if (tz == 0 && k > 0) s[0][sy][sx] = T[idx - nx * ny];
        if (tz == HZ - 1 && k < nz - 1) s[HZ + 1][sy][sx] = T[idx + nx * ny];
    }
    __syncthreads();
    if (!inside) return;
    if (i == 0 || j == 0 || k == 0 || i == nx - 1 || j == ny - 1 || k == nz - 1) {
        T_new[idx] = s[sz][sy][sx];
        return;
    }
    float c = s[sz][sy][sx];
    float lap = s[sz][sy][sx - 1] + s[sz][sy][sx + 1] + s[sz][sy - 1][sx] + s[sz][sy + 1][sx] +
                s[sz - 1][sy][sx] + s[sz + 1][sy][sx] - 6.0f * c;
    T_new[idx] = c + alpha * lap;
}

// bilinear interpolation of the periodic nx x ny grid f at (x, y) in cell units (node
// (i, j) at (i, j))
__device__ float bilinear(const float *f, float x, float y, int nx, int ny) {
    float fx = floorf(x);
    float fy = floorf(y);
    float ax = x - fx;
    float ay = y - fy;
    int i0 = ((int)fx % nx + nx) % nx;
    int j0 = ((int)fy % ny + ny) % ny;
    int i1 = (i0 + 1) % nx;
    int j1 = (j0 + 1) % ny;
    float f00 = f[j0 * nx + i0];
    float f10 = f[j0 * nx + i1];
    float f01 = f[j1 * nx + i0];
    float f11 = f[j1 * nx + i1];
    return (1.0f - ay) * ((1.0f - ax) * f00 + ax * f10) + ay * ((1.0f - ax) * f01 + ax * f11);
}

// one midpoint (RK2) step of dt of np passive tracers at (px, py) (cell units) in the
// velocity field (u, v) of a periodic nx x ny grid, wrapped back into the domain
__global__ void advect_tracers(float *px, float *py, const float *u, const float *v, float dt, int nx, int ny,
                               int np) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= np) return;
    float x = px[k];
    float y = py[k];
    float u1 = bilinear(u, x, y, nx, ny);
    float v1 = bilinear(v, x, y, nx, ny);
    float xm = x + 0.5f * dt * u1;
    float ym = y + 0.5f * dt * v1;
    float u2 = bilinear(u, xm, ym, nx, ny);
    float v2 = bilinear(v, xm, ym, nx, ny);
    x = x + dt * u2;
    y = y + dt * v2;
    if (x < 0.0f) x += nx;
    if (x >= nx) x -= nx;
    if (y < 0.0f) y += ny;
    if (y >= ny) y -= ny;
    px[k] = x;
    py[k] = y;
}

// the CFL time step's denominator of a 2-D Euler state (rho, u, v, p of n cells): the
// largest (|u| + c) / dx + (|v| + c) / dy with c = sqrt(gamma p / rho), a block's by a
// tree in shared memory, folded into *max_bits (a float's bits, 0 to start) by atomicMax
__global__ void cfl_max(const float *rho, const float *u, const float *v, const float *p, int *max_bits,
                        float gamma, float inv_dx, float inv_dy, int n) {
    __shared__ float s[CFL_BLOCK];
    int tid = threadIdx.x;
    int i = blockIdx.x * blockDim.x + tid;
    float speed = 0.0f;
    if (i < n) {
        float c = sqrtf(gamma * p[i] / rho[i]);
        speed = (fabsf(u[i]) + c) * inv_dx + (fabsf(v[i]) + c) * inv_dy;
    }
    s[tid] = speed;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (tid < stride) s[tid] = fmaxf(s[tid], s[tid + stride]);
        __syncthreads();
    }
    if (tid == 0) atomicMax(max_bits, __float_as_int(s[0]));
}

}
