// probe-unseen82: a finite-element-methods course's CUDA assignments (the Poisson / heat
// conduction problem -div(kappa grad u) = f on the unit square, P1 triangles and Q1
// quads), as a student who knows CUDA basics hands them in:
//   p1_element_integrals  a thread a P1 triangle: its three vertices gathered through the
//                         connectivity, the area and the barycentric gradients, the
//                         coefficient kappa(x, y) and the source f(x, y) integrated by a
//                         7-point Gauss rule (the rule's points and weights in __constant__
//                         memory), the 3 x 3 element stiffness matrix and the element load
//                         vector stored per element;
//   assemble_csr_atomic   the global assembly: a thread an element scatters its 3 x 3 matrix
//                         and its load vector into the global CSR matrix and right-hand side,
//                         searching each row for the column and adding with atomicAdd
//                         (elements sharing a vertex add into the same entries);
//   q1_stiffness_apply    a matrix-free stiffness apply y = A u on a structured Q1 mesh
//                         with a per-element conductivity, 16 x 16 nodes a block: the block's
//                         nodal values (with a halo) and its elements' kappa staged in shared
//                         memory, each interior node summing the rows of its four elements'
//                         4 x 4 reference matrices (in __constant__ memory); boundary nodes
//                         are Dirichlet rows (y = u);
//   csr_residual_jacobi   one step of preconditioned CG's setup in double: r = b - A x by a
//                         CSR SpMV a thread a row, the diagonal picked out during the row
//                         scan, and the Jacobi-preconditioned residual z = r / diag;
//   cg_update_dot         CG's fused vector update in double: x += alpha p, r -= alpha q,
//                         z = D^-1 r, and the dot product (r, z) for the next beta by a
//                         shared-memory tree reduction a block and one double atomicAdd a
//                         block;
//   dirichlet_csr         Dirichlet conditions imposed on the assembled CSR system by
//                         symmetric elimination, a thread a row: a Dirichlet row becomes an
//                         identity row with b = g, other rows move their Dirichlet columns'
//                         g values to the right-hand side and zero those entries (the
//                         domain a plate with a grid of circular holes held at a fixed
//                         temperature, so many rows are Dirichlet rows or touch one).

#define NQ 7                  // p1_element_integrals: the quadrature rule's points
#define TILE 16               // q1_stiffness_apply: a block's nodes a side (blockDim == (TILE, TILE))
#define CG_BLOCK 256          // cg_update_dot: threads a block (a power of two)

// the 7-point degree-5 rule on a triangle (Strang-Fix / Dunavant): barycentric coordinates
// (l1, l2) of the points (l0 = 1 - l1 - l2) and the weights (their sum 1, times the area)
__constant__ float c_ql1[NQ] = {0.33333333f, 0.05971587f, 0.47014206f, 0.47014206f,
                                0.79742699f, 0.10128651f, 0.10128651f};
__constant__ float c_ql2[NQ] = {0.33333333f, 0.47014206f, 0.05971587f, 0.47014206f,
                                0.10128651f, 0.79742699f, 0.10128651f};
__constant__ float c_qw[NQ] = {0.22500000f, 0.13239415f, 0.13239415f, 0.13239415f,
                               0.12593918f, 0.12593918f, 0.12593918f};

// the Q1 reference stiffness matrix of the Laplacian on a square element (the same for
// every element size in 2-D), local nodes (0,0), (1,0), (1,1), (0,1), row-major
__constant__ float c_kq1[16] = {0.66666667f, -0.16666667f, -0.33333333f, -0.16666667f,
                                -0.16666667f, 0.66666667f, -0.16666667f, -0.33333333f,
                                -0.33333333f, -0.16666667f, 0.66666667f, -0.16666667f,
                                -0.16666667f, -0.33333333f, -0.16666667f, 0.66666667f};

extern "C" {

// the heat conductivity kappa(x, y) and the source f(x, y) = 2 pi^2 sin(pi x) sin(pi y)
// (the manufactured solution's right-hand side for kappa = 1)
__device__ float conductivity(float x, float y) {
    return 1.0f + 0.5f * sinf(6.28318531f * x) * sinf(6.28318531f * y);
}

__device__ float source(float x, float y) {
    return 19.7392088f * sinf(3.14159265f * x) * sinf(3.14159265f * y);
}

// element integrals of n_elem P1 triangles (vertex coordinates X, Y; connectivity tri, 3
// vertex indices an element): Ke[9 e + 3 a + b] = (int_T kappa) grad l_a . grad l_b,
// fe[3 e + a] = int_T f l_a, area[e]
__global__ void p1_element_integrals(const float *X, const float *Y, const int *tri, float *Ke, float *fe,
                                     float *area, int n_elem) {
    int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= n_elem) return;
    int i0 = tri[3 * e];
    int i1 = tri[3 * e + 1];
    int i2 = tri[3 * e + 2];
    float x0 = X[i0], y0 = Y[i0];
    float x1 = X[i1], y1 = Y[i1];
    float x2 = X[i2], y2 = Y[i2];
    float det = (x1 - x0) * (y2 - y0) - (x2 - x0) * (y1 - y0);
    float A = 0.5f * fabsf(det);
    float inv = 1.0f / det;
    // gradients of the barycentric coordinates (constant on the element)
    float gx[3], gy[3];
    gx[0] = (y1 - y2) * inv;
    gy[0] = (x2 - x1) * inv;
    gx[1] = (y2 - y0) * inv;
    gy[1] = (x0 - x2) * inv;
    gx[2] = (y0 - y1) * inv;
    gy[2] = (x1 - x0) * inv;

    float kint = 0.0f;
    float f0 = 0.0f, f1 = 0.0f, f2 = 0.0f;
    for (int q = 0; q < NQ; q++) {
        float l1 = c_ql1[q];
        float l2 = c_ql2[q];
        float l0 = 1.0f - l1 - l2;
        float xq = l0 * x0 + l1 * x1 + l2 * x2;
        float yq = l0 * y0 + l1 * y1 + l2 * y2;
        float w = c_qw[q] * A;
        kint += w * conductivity(xq, yq);
        float fw = w * source(xq, yq);
        f0 += fw * l0;
        f1 += fw * l1;
        f2 += fw * l2;
    }
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++)
            Ke[9 * e + 3 * a + b] = kint * (gx[a] * gx[b] + gy[a] * gy[b]);
    fe[3 * e] = f0;
    fe[3 * e + 1] = f1;
    fe[3 * e + 2] = f2;
    area[e] = A;
}

// assembly of n_elem element matrices Ke (9 an element, row-major) and load vectors fe (3)
// into the CSR matrix (row_ptr, col_ind: the mesh's sparsity pattern; val zeroed) and the
// right-hand side b (zeroed), a thread an element
__global__ void assemble_csr_atomic(const int *tri, const float *Ke, const float *fe, const int *row_ptr,
                                    const int *col_ind, float *val, float *b, int n_elem) {
    int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= n_elem) return;
    int v[3];
    v[0] = tri[3 * e];
    v[1] = tri[3 * e + 1];
    v[2] = tri[3 * e + 2];
    for (int a = 0; a < 3; a++) {
        int row = v[a];
        atomicAdd(&b[row], fe[3 * e + a]);
        int start = row_ptr[row];
        int end = row_ptr[row + 1];
        for (int c = 0; c < 3; c++) {
            int col = v[c];
            // find the column in the row (the columns are sorted, at most 7 a row)
            for (int k = start; k < end; k++) {
                if (col_ind[k] == col) {
                    atomicAdd(&val[k], Ke[9 * e + 3 * a + c]);
                    break;
                }
            }
        }
    }
}

// one row of a Q1 element's reference matrix times the element's four nodal values
__device__ float q1_row(int loc, float u0, float u1, float u2, float u3) {
    return c_kq1[4 * loc] * u0 + c_kq1[4 * loc + 1] * u1 + c_kq1[4 * loc + 2] * u2 + c_kq1[4 * loc + 3] * u3;
}

// y = A u for the Q1 stiffness matrix of an N x N element mesh of the unit square with
// conductivity kappa (N x N, row-major) a element; u and y on the (N + 1) x (N + 1) nodes
// (row-major); Dirichlet rows (y = u) on the boundary
__global__ void q1_stiffness_apply(const float *u, const float *kappa, float *y, int N) {
    __shared__ float su[TILE + 2][TILE + 2];      // nodes i0 .. i0 + TILE + 1
    __shared__ float sk[TILE + 1][TILE + 1];      // elements i0 .. i0 + TILE
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int M = N + 1;
    int i = blockIdx.x * TILE + tx;
    int j = blockIdx.y * TILE + ty;
    int i0 = blockIdx.x * TILE - 1;
    int j0 = blockIdx.y * TILE - 1;
    int tid = ty * TILE + tx;

    for (int k = tid; k < (TILE + 2) * (TILE + 2); k += TILE * TILE) {
        int gi = i0 + k % (TILE + 2);
        int gj = j0 + k / (TILE + 2);
        float val = 0.0f;
        if (gi >= 0 && gi < M && gj >= 0 && gj < M) val = u[gj * M + gi];
        su[k / (TILE + 2)][k % (TILE + 2)] = val;
    }
    for (int k = tid; k < (TILE + 1) * (TILE + 1); k += TILE * TILE) {
        int gi = i0 + k % (TILE + 1);
        int gj = j0 + k / (TILE + 1);
        float val = 0.0f;
        if (gi >= 0 && gi < N && gj >= 0 && gj < N) val = kappa[gj * N + gi];
        sk[k / (TILE + 1)][k % (TILE + 1)] = val;
    }
    __syncthreads();

    if (i >= M || j >= M) return;
    if (i == 0 || j == 0 || i == N || j == N) {
        y[j * M + i] = su[ty + 1][tx + 1];
        return;
    }
    float acc = 0.0f;
    // element (i-1, j-1): this node is its local node 2
    acc += sk[ty][tx] * q1_row(2, su[ty][tx], su[ty][tx + 1], su[ty + 1][tx + 1], su[ty + 1][tx]);
    // element (i, j-1): local node 3
    acc += sk[ty][tx + 1] * q1_row(3, su[ty][tx + 1], su[ty][tx + 2], su[ty + 1][tx + 2], su[ty + 1][tx + 1]);
    // element (i-1, j): local node 1
    acc += sk[ty + 1][tx] * q1_row(1, su[ty + 1][tx], su[ty + 1][tx + 1], su[ty + 2][tx + 1], su[ty + 2][tx]);
    // element (i, j): local node 0
    acc += sk[ty + 1][tx + 1] *
           q1_row(0, su[ty + 1][tx + 1], su[ty + 1][tx + 2], su[ty + 2][tx + 2], su[ty + 2][tx + 1]);
    y[j * M + i] = acc;
}

// r = b - A x and z = r / diag(A) for an n-row CSR matrix in double, a thread a row
__global__ void csr_residual_jacobi(const int *row_ptr, const int *col_ind, const double *val, const double *x,
                                    const double *b, double *r, double *z, int n) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= n) return;
    double sum = 0.0;
    double diag = 1.0;
    for (int k = row_ptr[row]; k < row_ptr[row + 1]; k++) {
        int c = col_ind[k];
        double a = val[k];
        sum += a * x[c];
        if (c == row) diag = a;
    }
    double res = b[row] - sum;
    r[row] = res;
    z[row] = res / diag;
}

// CG's update for the step length alpha: x += alpha p, r -= alpha q (q = A p), z = inv_diag
// r (Jacobi), and *rz += (r, z) (a block's sum by a shared-memory tree, one atomicAdd)
__global__ void cg_update_dot(double *x, double *r, double *z, const double *p, const double *q,
                              const double *inv_diag, double alpha, double *rz, int n) {
    __shared__ double s[CG_BLOCK];
    int tid = threadIdx.x;
    int i = blockIdx.x * blockDim.x + tid;
    double local = 0.0;
    if (i < n) {
        x[i] += alpha * p[i];
        double ri = r[i] - alpha * q[i];
        double zi = inv_diag[i] * ri;
        r[i] = ri;
        z[i] = zi;
        local = ri * zi;
    }
    s[tid] = local;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (tid < stride) s[tid] += s[tid + stride];
        __syncthreads();
    }
    if (tid == 0) atomicAdd(rz, s[0]);
}

// Dirichlet conditions on an n-row CSR system (val, b in double) by symmetric
// elimination: rows with is_dir[row] become identity rows with b = g[row]; the other rows
// subtract val * g[col] of each Dirichlet column from b and zero the entry
__global__ void dirichlet_csr(const int *row_ptr, const int *col_ind, double *val, double *b, const double *g,
                              const int *is_dir, int n) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= n) return;
    int start = row_ptr[row];
    int end = row_ptr[row + 1];
    if (is_dir[row]) {
        for (int k = start; k < end; k++) val[k] = (col_ind[k] == row) ? 1.0 : 0.0;
        b[row] = g[row];
    } else {
        double rhs = b[row];
        for (int k = start; k < end; k++) {
            int c = col_ind[k];
            if (is_dir[c]) {
                rhs -= val[k] * g[c];
                val[k] = 0.0;
            }
        }
        b[row] = rhs;
    }
}

}
