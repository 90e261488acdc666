// probe-unseen169: a satellite geodesy / GNSS positioning course's CUDA assignments, as a
// student who knows CUDA basics hands them in:
//  - brdc_orbit: satellite positions (ECEF) and clock corrections from broadcast ephemerides
//    (IS-GPS-200 / Galileo OS SIS ICD user algorithm) in double, a thread a (epoch, satellite),
//    epoch-major output like an SP3 table: the ephemeris record nearest in time (an array of
//    structs), Kepler's equation by Newton iterations to 1e-13 rad, the true anomaly by atan2,
//    second-harmonic corrections, Earth rotation, the relativistic clock term;
//  - spp_solve: single-point positioning of many receivers at one epoch, a thread a receiver:
//    the epoch's satellite table (positions and clock biases) staged in shared memory, iterated
//    least squares from the Earth's centre (geometric range with the Sagnac term, the 4 x 4
//    normal equations accumulated a thread, solved by Cholesky) until the update is < 0.1 mm
//    (or the normal matrix is singular: a diverging 4-satellite fix);
//  - ionex_delay: the L1 ionospheric delay of each observation from a global ionosphere map
//    (IONEX grid, two hourly maps held in __constant__): the thin-shell pierce point, bilinear
//    interpolation in each map at the Earth-rotated longitude, linear interpolation in time,
//    the single-layer mapping function;
//  - slip_detect: cycle-slip detection, a thread a (station, satellite) arc walking its epochs
//    in order (the observations epoch-major, as read from RINEX): the Melbourne-Wubbena
//    combination against its running mean and standard deviation (Welford), the geometry-free
//    combination against its line through the arc's last two epochs; gaps start a new arc;
//    each observation flagged, the slips counted per arc and per satellite (atomicAdd);
//  - ambig_search: integer ambiguity search, a block a float ambiguity vector (5 to 9
//    decorrelated double-difference ambiguities, its inverse covariance in shared memory), a
//    thread a candidate of the 3^dim box about the rounded vector (its offsets in a per-thread
//    array): the quadratic form in float; the best and second best by warp shuffles then
//    shared memory, the fixed vector and the ratio-test value written;
//  - vtec_bin: binning of slant TEC observations into a global ionosphere grid for map
//    estimation: the receiver and satellite DCBs removed (gathers), the slant value mapped to
//    vertical, the nearest grid node's sum and count by atomicAdd (float and int).

#define GM_EARTH 3.986005e14            // m^3 / s^2 (WGS-84, as IS-GPS-200)
#define OMGE 7.2921151467e-5            // Earth rotation rate, rad / s
#define CLIGHT 299792458.0              // m / s
#define REL_F (-4.442807633e-10)        // relativistic clock correction constant, s / m^0.5
#define BO_MAXIT 20                     // brdc_orbit: Newton iterations at most
#define BO_TOL 1e-13                    // the Newton update (rad) that ends them
#define BO_TOE_STEP 7200.0              // seconds between ephemerides
#define SPP_MAXSAT 32                   // spp_solve: satellites in the epoch's table
#define SPP_MAXOBS 16                   // observation slots a receiver
#define SPP_MAXIT 10                    // iterations at most
#define SPP_TOL 1e-4                    // |dx| (m) that ends them
#define SPP_PIVOT 1e-9                  // the smallest Cholesky pivot over its diagonal element
#define IX_NLAT 71                      // ionex_delay: latitudes 87.5 .. -87.5 every 2.5 degrees
#define IX_NLON 73                      // longitudes -180 .. 180 every 5 degrees
#define IX_RE 6371.0f                   // km, the IONEX base radius
#define IX_HION 450.0f                  // km, the single layer's height
#define IX_K1 0.162372f                 // m of L1 delay per TECU: 40.3e16 / f1^2
#define PI_F 3.14159265358979f
#define CS_F1 1575.42e6                 // slip_detect: GPS L1, L2 (Hz)
#define CS_F2 1227.60e6
#define CS_MW_K 4.0                     // a Melbourne-Wubbena slip: |MW - mean| > max(K sigma, MIN) cycles
#define CS_MW_MIN 2.0
#define CS_GF_MAX 0.04                  // a geometry-free slip: |GF - GF extrapolated| > this (m)
#define CS_MAXGAP 10                    // epochs without data after which a new arc starts
#define CS_MISSING 0                    // observation flags
#define CS_OK 1
#define CS_START 2
#define CS_SLIP 3
#define AS_MAXDIM 9                     // ambig_search: ambiguities a vector at most (3^9 candidates)
#define AS_QMIN 1e-6f                   // the best quadratic form's floor in the ratio
#define GB_RE 6371.0f                   // vtec_bin: km
#define GB_HION 450.0f

// ionex_delay's two TEC maps (set by the host, TECU): map m, latitude row r (87.5 - 2.5 r
// degrees), longitude column c (-180 + 5 c degrees) at (m * IX_NLAT + r) * IX_NLON + c
__constant__ float c_tec[2 * IX_NLAT * IX_NLON];

// a broadcast ephemeris record: times in GPS seconds of the week, angles in rad (rates rad/s),
// lengths in m, clock terms in s, s/s, s/s^2
struct Ephem {
    double toe, sqrtA, e, i0, omega0, omega, M0, dn, idot, omegadot;
    double cuc, cus, crc, crs, cic, cis;
    double toc, af0, af1, af2;
};

extern "C" {

// n positions of nsat satellites at epochs t0 + k dt (thread i: epoch i / nsat, satellite
// i % nsat) from eph (nblk records a satellite, toe every BO_TOE_STEP from eph[s * nblk].toe):
// pos[4 i ..] = x, y, z (m, ECEF at the epoch), the clock bias (s); iters[i] the Newton
// iterations
__global__ void brdc_orbit(const Ephem *eph, int nblk, int nsat, double t0, double dt, double *pos, int *iters,
                           int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int s = i % nsat;
    int k = i / nsat;
    double t = t0 + k * dt;
    int b = (int)floor((t - eph[s * nblk].toe) / BO_TOE_STEP + 0.5);
    if (b < 0) b = 0;
    if (b > nblk - 1) b = nblk - 1;
    const Ephem *E = &eph[s * nblk + b];
    double tk = t - E->toe;
    double A = E->sqrtA * E->sqrtA;
    double n0 = sqrt(GM_EARTH / (A * A * A));
    double M = E->M0 + (n0 + E->dn) * tk;
    double e = E->e;
    double Ek = M;
    int it = 0;
    while (it < BO_MAXIT) {
        double d = (Ek - e * sin(Ek) - M) / (1.0 - e * cos(Ek));
        Ek -= d;
        it++;
        if (fabs(d) < BO_TOL) break;
    }
    double sE = sin(Ek);
    double cE = cos(Ek);
    double nu = atan2(sqrt(1.0 - e * e) * sE, cE - e);
    double phi = nu + E->omega;
    double s2 = sin(2.0 * phi);
    double c2 = cos(2.0 * phi);
    double u = phi + E->cus * s2 + E->cuc * c2;
    double r = A * (1.0 - e * cE) + E->crs * s2 + E->crc * c2;
    double inc = E->i0 + E->idot * tk + E->cis * s2 + E->cic * c2;
    double xp = r * cos(u);
    double yp = r * sin(u);
    double Om = E->omega0 + (E->omegadot - OMGE) * tk - OMGE * E->toe;
    double cO = cos(Om);
    double sO = sin(Om);
    double ci = cos(inc);
    pos[4 * i] = xp * cO - yp * ci * sO;
    pos[4 * i + 1] = xp * sO + yp * ci * cO;
    pos[4 * i + 2] = yp * sin(inc);
    double tc = t - E->toc;
    pos[4 * i + 3] = E->af0 + E->af1 * tc + E->af2 * tc * tc + REL_F * e * E->sqrtA * sE;
    iters[i] = it;
}

// n receivers, receiver r with nobs[r] pseudoranges pr[r * SPP_MAXOBS + k] (m) of satellites
// prn[r * SPP_MAXOBS + k] of the table sat (x, y, z in m, clock bias in s: 4 doubles a
// satellite): sol[4 r ..] = x, y, z (m, ECEF), receiver clock bias (m); iters[r] the
// iterations run (0: under 4 observations, not solved; SPP_MAXIT + 1: not converged; -1: a
// singular normal matrix, sol the estimate before it)
__global__ void spp_solve(const double *sat, const int *nobs, const int *prn, const double *pr, double *sol,
                          int *iters, int n) {
    __shared__ double s_sat[SPP_MAXSAT * 4];
    for (int k = threadIdx.x; k < SPP_MAXSAT * 4; k += blockDim.x) s_sat[k] = sat[k];
    __syncthreads();
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= n) return;
    int m = nobs[r];
    double x[4] = {0.0, 0.0, 0.0, 0.0};
    int it = 0;
    if (m >= 4) {
        for (it = 1; it <= SPP_MAXIT; it++) {
            double N[4][4];
            double v[4];
            for (int a = 0; a < 4; a++) {
                v[a] = 0.0;
                for (int c = 0; c < 4; c++) N[a][c] = 0.0;
            }
            for (int k = 0; k < m; k++) {
                int j = prn[r * SPP_MAXOBS + k];
                double sx = s_sat[4 * j];
                double sy = s_sat[4 * j + 1];
                double sz = s_sat[4 * j + 2];
                double dx = sx - x[0];
                double dy = sy - x[1];
                double dz = sz - x[2];
                double rho = sqrt(dx * dx + dy * dy + dz * dz);
                double h[4] = {-dx / rho, -dy / rho, -dz / rho, 1.0};
                rho += OMGE * (sx * x[1] - sy * x[0]) / CLIGHT;        // Sagnac effect
                double res = pr[r * SPP_MAXOBS + k] - (rho + x[3] - CLIGHT * s_sat[4 * j + 3]);
                for (int a = 0; a < 4; a++) {
                    v[a] += h[a] * res;
                    for (int c = 0; c <= a; c++) N[a][c] += h[a] * h[c];
                }
            }
            // Cholesky N = L L^T (in N's lower triangle), then L y = v, L^T d = y; a pivot
            // under SPP_PIVOT of its diagonal: a singular geometry, given up
            bool singular = false;
            for (int a = 0; a < 4; a++) {
                for (int c = 0; c < a; c++) {
                    double sum = N[a][c];
                    for (int q = 0; q < c; q++) sum -= N[a][q] * N[c][q];
                    N[a][c] = sum / N[c][c];
                }
                double sum = N[a][a];
                for (int q = 0; q < a; q++) sum -= N[a][q] * N[a][q];
                if (sum <= SPP_PIVOT * N[a][a]) singular = true;
                N[a][a] = sqrt(sum);
            }
            if (singular) {
                it = -1;
                break;
            }
            for (int a = 0; a < 4; a++) {
                double sum = v[a];
                for (int q = 0; q < a; q++) sum -= N[a][q] * v[q];
                v[a] = sum / N[a][a];
            }
            for (int a = 3; a >= 0; a--) {
                double sum = v[a];
                for (int q = a + 1; q < 4; q++) sum -= N[q][a] * v[q];
                v[a] = sum / N[a][a];
            }
            double step = 0.0;
            for (int a = 0; a < 4; a++) {
                x[a] += v[a];
                step += v[a] * v[a];
            }
            if (sqrt(step) < SPP_TOL) break;
        }
    }
    for (int a = 0; a < 4; a++) sol[4 * r + a] = x[a];
    iters[r] = it;
}

// the L1 delay (m) of n observations: receiver rx[i] at (rlat, rlon) (rad), the satellite at
// azimuth az[i], elevation el[i] (rad), t[i] s after the first map (the second dtmap s later)
__global__ void ionex_delay(const float *rlat, const float *rlon, const int *rx, const float *az, const float *el,
                            const float *t, float *delay, float dtmap, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int r = rx[i];
    float phi = rlat[r];
    float lam = rlon[r];
    float e = el[i];
    float a = az[i];
    float ce = cosf(e);
    float sz = IX_RE / (IX_RE + IX_HION) * ce;                 // sine of the zenith angle at the pierce point
    float psi = 0.5f * PI_F - e - asinf(sz);                   // the Earth-centred angle to it
    float sp = sinf(phi) * cosf(psi) + cosf(phi) * sinf(psi) * cosf(a);
    float phip = asinf(sp);
    float lamp = lam + asinf(sinf(psi) * sinf(a) / cosf(phip));
    float latd = phip * (180.0f / PI_F);
    float lond = lamp * (180.0f / PI_F);
    float ti = t[i];
    float tec[2];
    for (int m = 0; m < 2; m++) {
        // the map's longitude of the pierce point, the Earth having turned under the ionosphere
        float lo = lond + (ti - m * dtmap) * (360.0f / 86400.0f);
        lo = fmodf(lo + 180.0f, 360.0f);
        if (lo < 0.0f) lo += 360.0f;
        float fx = lo / 5.0f;
        float fy = (87.5f - latd) / 2.5f;
        fy = fminf(fmaxf(fy, 0.0f), (float)(IX_NLAT - 1));
        int ix = min((int)fx, IX_NLON - 2);
        int iy = min((int)fy, IX_NLAT - 2);
        float wx = fx - ix;
        float wy = fy - iy;
        const float *g = c_tec + m * IX_NLAT * IX_NLON;
        float e00 = g[iy * IX_NLON + ix];
        float e01 = g[iy * IX_NLON + ix + 1];
        float e10 = g[(iy + 1) * IX_NLON + ix];
        float e11 = g[(iy + 1) * IX_NLON + ix + 1];
        tec[m] = (1.0f - wy) * ((1.0f - wx) * e00 + wx * e01) + wy * ((1.0f - wx) * e10 + wx * e11);
    }
    float w = ti / dtmap;
    float vtec = (1.0f - w) * tec[0] + w * tec[1];
    delay[i] = IX_K1 * vtec / sqrtf(1.0f - sz * sz);
}

// narc arcs (arc a: satellite a % nsat of station a / nsat) over nep epochs, observations at
// k * narc + a: phases L1, L2 (cycles), pseudoranges P1, P2 (m), L1 == 0 where missing: flag
// each (CS_MISSING, CS_OK, CS_START, CS_SLIP), nslip[a] the arc's slips, sat_slips[s] += the
// slips of satellite s
__global__ void slip_detect(const double *L1, const double *L2, const double *P1, const double *P2,
                            unsigned char *flag, int *nslip, int *sat_slips, int nsat, int nep, int narc) {
    int a = blockIdx.x * blockDim.x + threadIdx.x;
    if (a >= narc) return;
    const double lw = CLIGHT / (CS_F1 - CS_F2);                // the wide lane, ~0.862 m
    const double l1w = CLIGHT / CS_F1;
    const double l2w = CLIGHT / CS_F2;
    int count = 0;
    double mean = 0.0;
    double m2 = 0.0;
    double gf1 = 0.0;                                          // the arc's last two GF values, at epochs
    double gf2 = 0.0;                                          // last and last2
    int ngf = 0;
    int last = -CS_MAXGAP - 1;
    int last2 = 0;
    int slips = 0;
    for (int k = 0; k < nep; k++) {
        int idx = k * narc + a;
        double l1 = L1[idx];
        unsigned char f = CS_MISSING;
        if (l1 != 0.0) {
            double l2 = L2[idx];
            double mw = (l1 - l2) - (CS_F1 * P1[idx] + CS_F2 * P2[idx]) / ((CS_F1 + CS_F2) * lw);
            double gf = l1w * l1 - l2w * l2;
            if (k - last > CS_MAXGAP) {
                f = CS_START;
            } else {
                double sig = count > 1 ? sqrt(m2 / (count - 1)) : 0.0;
                double thr = fmax(CS_MW_K * sig, CS_MW_MIN);
                // GF extrapolated linearly from the last two epochs (the ionosphere's trend),
                // once the arc (since its start or last slip) has two
                bool gfslip = false;
                if (ngf > 1) gfslip = fabs(gf - (gf1 + (gf1 - gf2) * (k - last) / (last - last2))) > CS_GF_MAX;
                if (fabs(mw - mean) > thr || gfslip) {
                    f = CS_SLIP;
                    slips++;
                    atomicAdd(&sat_slips[a % nsat], 1);
                } else {
                    f = CS_OK;
                }
            }
            if (f == CS_OK) {
                count++;
                double d = mw - mean;
                mean += d / count;
                m2 += d * (mw - mean);
                ngf++;
            } else {
                count = 1;
                mean = mw;
                m2 = 0.0;
                ngf = 1;
            }
            gf2 = gf1;
            gf1 = gf;
            last2 = last;
            last = k;
        }
        flag[idx] = f;
    }
    nslip[a] = slips;
}

// for each vector p (a block each) of dim[p] float ambiguities afloat[p * AS_MAXDIM ..] (cycles)
// with inverse covariance Qinv[p * AS_MAXDIM^2 ..] (row-major, rows AS_MAXDIM apart): the
// integer vector of the box round(afloat) + {-1, 0, 1}^dim nearest in the metric Qinv in
// fixed[p * AS_MAXDIM ..], its quadratic form in qbest[p] and the second best's over it in
// ratio[p] (blockDim.x a multiple of 32, at most 1024)
__global__ void ambig_search(const double *afloat, const float *Qinv, const int *dim, double *fixed, float *qbest,
                             float *ratio) {
    __shared__ float s_Q[AS_MAXDIM * AS_MAXDIM];
    __shared__ float s_frac[AS_MAXDIM];
    __shared__ double s_cen[AS_MAXDIM];
    __shared__ float w_q1[32];
    __shared__ float w_q2[32];
    __shared__ int w_i1[32];
    int p = blockIdx.x;
    int tid = threadIdx.x;
    int m = dim[p];
    int ncand = 1;
    for (int k = 0; k < m; k++) ncand *= 3;
    if (tid < AS_MAXDIM * AS_MAXDIM) s_Q[tid] = Qinv[p * AS_MAXDIM * AS_MAXDIM + tid];
    if (tid < m) {
        double af = afloat[p * AS_MAXDIM + tid];
        double c = rint(af);
        s_cen[tid] = c;
        s_frac[tid] = (float)(af - c);
    }
    __syncthreads();
    float q1 = FLT_MAX;
    float q2 = FLT_MAX;
    int i1 = INT_MAX;
    for (int c = tid; c < ncand; c += blockDim.x) {
        float d[AS_MAXDIM];
        int code = c;
        for (int k = 0; k < m; k++) {
            d[k] = (float)(code % 3 - 1) - s_frac[k];
            code /= 3;
        }
        float q = 0.0f;
        for (int k = 0; k < m; k++) {
            float row = 0.0f;
            for (int l = 0; l < m; l++) row += s_Q[k * AS_MAXDIM + l] * d[l];
            q += d[k] * row;
        }
        if (q < q1) {
            q2 = q1;
            q1 = q;
            i1 = c;
        } else if (q < q2) {
            q2 = q;
        }
    }
    // the warp's best and second best, then the block's
    for (int o = 16; o > 0; o >>= 1) {
        float oq1 = __shfl_down_sync(0xffffffff, q1, o);
        float oq2 = __shfl_down_sync(0xffffffff, q2, o);
        int oi1 = __shfl_down_sync(0xffffffff, i1, o);
        if (oq1 < q1 || (oq1 == q1 && oi1 < i1)) {
            q2 = fminf(q1, oq2);
            q1 = oq1;
            i1 = oi1;
        } else {
            q2 = fminf(q2, oq1);
        }
    }
    int warp = tid / 32;
    if ((tid & 31) == 0) {
        w_q1[warp] = q1;
        w_q2[warp] = q2;
        w_i1[warp] = i1;
    }
    __syncthreads();
    if (tid == 0) {
        for (int w = 1; w < blockDim.x / 32; w++) {
            if (w_q1[w] < q1 || (w_q1[w] == q1 && w_i1[w] < i1)) {
                q2 = fminf(q1, w_q2[w]);
                q1 = w_q1[w];
                i1 = w_i1[w];
            } else {
                q2 = fminf(q2, w_q1[w]);
            }
        }
        int code = i1;
        for (int k = 0; k < m; k++) {
            fixed[p * AS_MAXDIM + k] = s_cen[k] + (double)(code % 3 - 1);
            code /= 3;
        }
        qbest[p] = q1;
        ratio[p] = q2 / fmaxf(q1, AS_QMIN);
    }
}

// n slant TEC observations stec (TECU) at pierce points (ipp_lat, ipp_lon, degrees), elevation
// el (rad), receiver rx, satellite sv: observations at el >= elmin less the DCBs dcb_rx[rx],
// dcb_sv[sv] (TECU), mapped to vertical, added to the sum and the count of the nearest node of
// the nlat x nlon grid (row-major from lat0, lon0, steps dlat, dlon degrees; longitudes wrap)
__global__ void vtec_bin(const float *ipp_lat, const float *ipp_lon, const float *el, const float *stec,
                         const int *rx, const int *sv, const float *dcb_rx, const float *dcb_sv, float *sum,
                         int *cnt, float lat0, float lon0, float dlat, float dlon, int nlat, int nlon, float elmin,
                         int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float e = el[i];
    if (e < elmin) return;
    float sz = GB_RE / (GB_RE + GB_HION) * cosf(e);
    float vtec = (stec[i] - dcb_rx[rx[i]] - dcb_sv[sv[i]]) * sqrtf(1.0f - sz * sz);
    int row = (int)floorf((ipp_lat[i] - lat0) / dlat + 0.5f);
    int col = (int)floorf((ipp_lon[i] - lon0) / dlon + 0.5f);
    row = min(max(row, 0), nlat - 1);
    col = col % nlon;
    if (col < 0) col += nlon;
    int cell = row * nlon + col;
    atomicAdd(&sum[cell], vtec);
    atomicAdd(&cnt[cell], 1);
}

}
