// probe-unseen95: a computer-graphics rendering course's CUDA assignments, as a student who
// knows CUDA basics hands them in:
//  - tonemap_reinhard: the last pass of an HDR renderer, a thread a pixel: interleaved RGB
//    floats scaled by the exposure, Reinhard's extended operator on the luminance (white
//    point), clamped and sRGB-encoded (powf above the linear toe), stored as RGBA8 (uchar4);
//  - raster_depth: a depth-only rasterizer, a thread a screen-space triangle (9 floats,
//    vertices snapped to 1/16 pixel): back faces culled, the bounding box clamped to the
//    screen, edge functions at every pixel centre in the box, the interpolated depth packed
//    with the triangle's index (depth bits << 32 | index) and folded into a 64-bit z-buffer
//    by atomicMin (the buffer cleared to all ones by the host);
//  - texture_bilinear: texturing from a G-buffer, a thread a pixel: its (u, v) and diffuse
//    light, four RGBA8 texels of a power-of-two texture fetched with wrap addressing,
//    bilinearly blended, lit and stored as uchar4;
//  - tiled_light_cull: Forward+ shading, a 16 x 16 block a screen tile: the tile's depth
//    range by shared atomicMin/atomicMax on the depth bits, the block's threads testing the
//    point lights against the tile's box (screen rectangle times depth range) and appending
//    the survivors to a shared list by a shared atomicAdd, then every pixel summing the
//    listed lights' smooth falloff; the tile's light count stored for a heat map;
//  - path_trace: one progressive sample a pixel of a diffuse path tracer (a closed Cornell-box
//    room of six walls, spheres in __constant__ memory, one of them an emitter in the
//    ceiling), a per-thread xorshift RNG seeded by a Wang hash of the pixel and the frame,
//    cosine-weighted bounces, Russian roulette from the third bounce on, at most
//    PT_MAX_DEPTH bounces, added to an accumulation buffer;
//  - raycast_mesh: primary rays against a triangle mesh (two icospheres on a ground quad) read
//    straight from global memory, a thread a pixel testing every triangle by
//    Moller-Trumbore; the nearest hit's distance and index, and a flat-shaded RGBA8 pixel.

#define TILE 16               // tiled_light_cull: blockDim == (TILE, TILE), width and height multiples of it
#define MAX_TILE_LIGHTS 256   // tiled_light_cull: room in a tile's light list
#define PT_SPHERES 12         // path_trace: spheres of the scene (set by the host)
#define PT_MAX_DEPTH 8        // path_trace: the most bounces a path
#define ROOM_X0 (-4.0f)       // path_trace: the room, an axis-aligned box
#define ROOM_X1 4.0f
#define ROOM_Y0 (-0.5f)
#define ROOM_Y1 4.5f
#define ROOM_Z0 (-10.0f)
#define ROOM_Z1 2.5f
#define CAM_Y 1.5f            // path_trace: the camera at (0, CAM_Y, CAM_Z)
#define CAM_Z 2.0f

// path_trace's scene: a sphere's centre, radius, diffuse albedo and emitted radiance
struct Sphere {
    float cx, cy, cz, rad;
    float ar, ag, ab;
    float er, eg, eb;
};
__constant__ Sphere c_spheres[PT_SPHERES];

extern "C" {

// ---- tone mapping ----

__device__ float srgb_encode(float c) {
    if (c <= 0.0031308f) return 12.92f * c;
    return 1.055f * powf(c, 1.0f / 2.4f) - 0.055f;
}

__device__ unsigned char to_byte(float c) {
    return (unsigned char)(c * 255.0f + 0.5f);
}

// n pixels of interleaved RGB radiance (hdr[3 i .. 3 i + 2]) scaled by exposure, mapped by
// Reinhard's extended operator Ld = L (1 + L / white^2) / (1 + L) on the luminance L (the
// colour scaled by Ld / L), clamped to 1, sRGB-encoded, stored as RGBA8 (alpha 255)
__global__ void tonemap_reinhard(const float *hdr, uchar4 *ldr, float exposure, float white, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float r = hdr[3 * i] * exposure;
    float g = hdr[3 * i + 1] * exposure;
    float b = hdr[3 * i + 2] * exposure;
    float L = 0.2126f * r + 0.7152f * g + 0.0722f * b;
    float scale = 0.0f;
    if (L > 0.0f) {
        float Ld = L * (1.0f + L / (white * white)) / (1.0f + L);
        scale = Ld / L;
    }
    r = fminf(r * scale, 1.0f);
    g = fminf(g * scale, 1.0f);
    b = fminf(b * scale, 1.0f);
    ldr[i] = make_uchar4(to_byte(srgb_encode(r)), to_byte(srgb_encode(g)), to_byte(srgb_encode(b)), 255);
}

// ---- rasterization ----

// the edge function of a -> b at p: positive when p is left of the edge (counter-clockwise
// triangles in this screen space have a positive area)
__device__ float edge_fn(float ax, float ay, float bx, float by, float px, float py) {
    return (bx - ax) * (py - ay) - (by - ay) * (px - ax);
}

// ntri triangles (verts[9 t ..]: x0 y0 z0 x1 y1 z1 x2 y2 z2, screen pixels and depth in
// (0, 1)) into a width x height z-buffer of (depth bits << 32 | t) keys: back-facing and
// degenerate triangles skipped, pixel centres on an edge inside
__global__ void raster_depth(const float *verts, unsigned long long *zbuf, int ntri, int width, int height) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= ntri) return;
    const float *v = verts + 9 * t;
    float x0 = v[0], y0 = v[1], z0 = v[2];
    float x1 = v[3], y1 = v[4], z1 = v[5];
    float x2 = v[6], y2 = v[7], z2 = v[8];
    float area = edge_fn(x0, y0, x1, y1, x2, y2);
    if (area <= 0.0f) return;
    int minx = max((int)floorf(fminf(x0, fminf(x1, x2))), 0);
    int maxx = min((int)ceilf(fmaxf(x0, fmaxf(x1, x2))), width - 1);
    int miny = max((int)floorf(fminf(y0, fminf(y1, y2))), 0);
    int maxy = min((int)ceilf(fmaxf(y0, fmaxf(y1, y2))), height - 1);
    float inv_area = 1.0f / area;
    for (int py = miny; py <= maxy; py++) {
        for (int px = minx; px <= maxx; px++) {
            float sx = px + 0.5f;
            float sy = py + 0.5f;
            float w0 = edge_fn(x1, y1, x2, y2, sx, sy);
            float w1 = edge_fn(x2, y2, x0, y0, sx, sy);
            float w2 = edge_fn(x0, y0, x1, y1, sx, sy);
            if (w0 >= 0.0f && w1 >= 0.0f && w2 >= 0.0f) {
                float z = (w0 * z0 + w1 * z1 + w2 * z2) * inv_area;
                unsigned long long key = ((unsigned long long)__float_as_uint(z) << 32) | (unsigned int)t;
                atomicMin(&zbuf[py * width + px], key);
            }
        }
    }
}

// ---- texturing ----

__device__ uchar4 texel(const uchar4 *tex, int x, int y, int tw, int th) {
    x = ((x % tw) + tw) % tw;
    y = ((y % th) + th) % th;
    return tex[y * tw + x];
}

// n pixels: uv[i] in texture space (repeating), the tw x th RGBA8 texture sampled
// bilinearly (texel centres at half-integers, wrap addressing), times light[i], as uchar4
__global__ void texture_bilinear(const float2 *uv, const float *light, const uchar4 *tex, uchar4 *out, int tw,
                                 int th, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float2 t = uv[i];
    float x = t.x * tw - 0.5f;
    float y = t.y * th - 0.5f;
    float fx0 = floorf(x);
    float fy0 = floorf(y);
    float ax = x - fx0;
    float ay = y - fy0;
    int ix = (int)fx0;
    int iy = (int)fy0;
    uchar4 c00 = texel(tex, ix, iy, tw, th);
    uchar4 c10 = texel(tex, ix + 1, iy, tw, th);
    uchar4 c01 = texel(tex, ix, iy + 1, tw, th);
    uchar4 c11 = texel(tex, ix + 1, iy + 1, tw, th);
    float w00 = (1.0f - ax) * (1.0f - ay);
    float w10 = ax * (1.0f - ay);
    float w01 = (1.0f - ax) * ay;
    float w11 = ax * ay;
    float r = w00 * c00.x + w10 * c10.x + w01 * c01.x + w11 * c11.x;
    float g = w00 * c00.y + w10 * c10.y + w01 * c01.y + w11 * c11.y;
    float b = w00 * c00.z + w10 * c10.z + w01 * c01.z + w11 * c11.z;
    float l = light[i];
    out[i] = make_uchar4((unsigned char)(fminf(r * l, 255.0f) + 0.5f), (unsigned char)(fminf(g * l, 255.0f) + 0.5f),
                         (unsigned char)(fminf(b * l, 255.0f) + 0.5f), 255);
}

// ---- Forward+ ----

// a width x height frame (depth[] in (0, 1)), a 16 x 16 block a tile; num_lights point
// lights (lights[l]: screen x, y, depth z, radius r in pixels; depth differences count
// zscale pixels a unit) with colours lcolor[l] (rgb, w unused). A light reaches a pixel
// when its distance d < r, with weight (1 - d^2 / r^2)^2; out[p] the summed rgb (w = 1),
// tile_count[tile] the lights the tile kept
__global__ void tiled_light_cull(const float *depth, const float4 *lights, const float4 *lcolor, float4 *out,
                                 int *tile_count, int num_lights, float zscale, int width, int height) {
    __shared__ unsigned int s_zmin;
    __shared__ unsigned int s_zmax;
    __shared__ int s_count;
    __shared__ int s_list[MAX_TILE_LIGHTS];
    int tid = threadIdx.y * TILE + threadIdx.x;
    int px = blockIdx.x * TILE + threadIdx.x;
    int py = blockIdx.y * TILE + threadIdx.y;
    if (tid == 0) {
        s_zmin = 0x7f7fffff;
        s_zmax = 0;
        s_count = 0;
    }
    __syncthreads();

    // the tile's depth range (depths are positive: their bits order as the floats)
    float z = depth[py * width + px];
    atomicMin(&s_zmin, __float_as_uint(z));
    atomicMax(&s_zmax, __float_as_uint(z));
    __syncthreads();
    float zmin = __uint_as_float(s_zmin);
    float zmax = __uint_as_float(s_zmax);

    // cull: the light's sphere against the tile's box
    float bx0 = blockIdx.x * TILE;
    float bx1 = bx0 + TILE;
    float by0 = blockIdx.y * TILE;
    float by1 = by0 + TILE;
    for (int l = tid; l < num_lights; l += TILE * TILE) {
        float4 L = lights[l];
        float dx = fmaxf(fmaxf(bx0 - L.x, L.x - bx1), 0.0f);
        float dy = fmaxf(fmaxf(by0 - L.y, L.y - by1), 0.0f);
        float dz = fmaxf(fmaxf(zmin - L.z, L.z - zmax), 0.0f) * zscale;
        if (dx * dx + dy * dy + dz * dz < L.w * L.w) {
            int slot = atomicAdd(&s_count, 1);
            if (slot < MAX_TILE_LIGHTS) s_list[slot] = l;
        }
    }
    __syncthreads();

    // shade with the tile's lights
    int cnt = min(s_count, MAX_TILE_LIGHTS);
    float sx = px + 0.5f;
    float sy = py + 0.5f;
    float r = 0.0f, g = 0.0f, b = 0.0f;
    for (int k = 0; k < cnt; k++) {
        int l = s_list[k];
        float4 L = lights[l];
        float dx = sx - L.x;
        float dy = sy - L.y;
        float dz = (z - L.z) * zscale;
        float d2 = dx * dx + dy * dy + dz * dz;
        float r2 = L.w * L.w;
        if (d2 < r2) {
            float a = 1.0f - d2 / r2;
            a = a * a;
            float4 c = lcolor[l];
            r += a * c.x;
            g += a * c.y;
            b += a * c.z;
        }
    }
    out[py * width + px] = make_float4(r, g, b, 1.0f);
    if (tid == 0) tile_count[blockIdx.y * gridDim.x + blockIdx.x] = cnt;
}

// ---- path tracing ----

__device__ unsigned int wang_hash(unsigned int s) {
    s = (s ^ 61u) ^ (s >> 16);
    s *= 9u;
    s = s ^ (s >> 4);
    s *= 0x27d4eb2du;
    s = s ^ (s >> 15);
    return s;
}

// xorshift32, a uniform float in [0, 1) from the top 24 bits
__device__ float rand01(unsigned int *state) {
    unsigned int x = *state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    *state = x;
    return (x >> 8) * (1.0f / 16777216.0f);
}

// where a ray from inside the room leaves it: the distance, and the wall (0 / 1: x low /
// high, 2 / 3: floor / ceiling, 4 / 5: back / front)
__device__ int room_exit(float3 o, float3 d, float *t) {
    float tx = 1e30f, ty = 1e30f, tz = 1e30f;
    if (d.x > 0.0f) tx = (ROOM_X1 - o.x) / d.x;
    else if (d.x < 0.0f) tx = (ROOM_X0 - o.x) / d.x;
    if (d.y > 0.0f) ty = (ROOM_Y1 - o.y) / d.y;
    else if (d.y < 0.0f) ty = (ROOM_Y0 - o.y) / d.y;
    if (d.z > 0.0f) tz = (ROOM_Z1 - o.z) / d.z;
    else if (d.z < 0.0f) tz = (ROOM_Z0 - o.z) / d.z;
    if (tx <= ty && tx <= tz) {
        *t = tx;
        return d.x > 0.0f ? 1 : 0;
    }
    if (ty <= tz) {
        *t = ty;
        return d.y > 0.0f ? 3 : 2;
    }
    *t = tz;
    return d.z > 0.0f ? 5 : 4;
}

// one sample of a width x height image of a closed room (a Cornell box: red wall at x low,
// blue at x high, the rest grey) holding the spheres, from a pinhole camera at CAM_Y, CAM_Z
// looking down -z (vertical field of view tan_half); paths of up to PT_MAX_DEPTH diffuse
// bounces ending on an emitter or by Russian roulette; the sample's radiance added to
// accum[3 p ..]
__global__ void path_trace(float *accum, unsigned int frame, float tan_half, int width, int height) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;
    int p = y * width + x;
    unsigned int rng = wang_hash((unsigned int)p * 1973u + frame * 9277u + 26699u);

    float aspect = (float)width / height;
    float u = ((x + rand01(&rng)) / width * 2.0f - 1.0f) * aspect * tan_half;
    float v = (1.0f - (y + rand01(&rng)) / height * 2.0f) * tan_half;
    float inv = rsqrtf(u * u + v * v + 1.0f);
    float3 o = make_float3(0.0f, CAM_Y, CAM_Z);
    float3 d = make_float3(u * inv, v * inv, -inv);
    float3 thr = make_float3(1.0f, 1.0f, 1.0f);
    float3 L = make_float3(0.0f, 0.0f, 0.0f);

    for (int depth = 0; depth < PT_MAX_DEPTH; depth++) {
        // nearest hit: the room's walls, then the spheres
        float tbest;
        int wall = room_exit(o, d, &tbest);
        int hit = -1;
        for (int s = 0; s < PT_SPHERES; s++) {
            float ocx = o.x - c_spheres[s].cx;
            float ocy = o.y - c_spheres[s].cy;
            float ocz = o.z - c_spheres[s].cz;
            float b = ocx * d.x + ocy * d.y + ocz * d.z;
            float c = ocx * ocx + ocy * ocy + ocz * ocz - c_spheres[s].rad * c_spheres[s].rad;
            float disc = b * b - c;
            if (disc > 0.0f) {
                float sq = sqrtf(disc);
                float t = -b - sq;
                if (t < 1e-4f) t = -b + sq;
                if (t > 1e-4f && t < tbest) {
                    tbest = t;
                    hit = s;
                }
            }
        }
        float3 hp = make_float3(o.x + tbest * d.x, o.y + tbest * d.y, o.z + tbest * d.z);
        float3 nrm;
        float ar, ag, ab;
        if (hit < 0) {
            nrm = make_float3(0.0f, 0.0f, 0.0f);
            if (wall == 0) nrm.x = 1.0f;
            else if (wall == 1) nrm.x = -1.0f;
            else if (wall == 2) nrm.y = 1.0f;
            else if (wall == 3) nrm.y = -1.0f;
            else if (wall == 4) nrm.z = 1.0f;
            else nrm.z = -1.0f;
            ar = 0.7f;
            ag = 0.7f;
            ab = 0.7f;
            if (wall == 0) {
                ag = 0.2f;
                ab = 0.2f;
            } else if (wall == 1) {
                ar = 0.2f;
                ag = 0.3f;
            }
        } else {
            float ir = 1.0f / c_spheres[hit].rad;
            nrm = make_float3((hp.x - c_spheres[hit].cx) * ir, (hp.y - c_spheres[hit].cy) * ir,
                              (hp.z - c_spheres[hit].cz) * ir);
            if (c_spheres[hit].er > 0.0f) {          // an emitter ends the path
                L.x += thr.x * c_spheres[hit].er;
                L.y += thr.y * c_spheres[hit].eg;
                L.z += thr.z * c_spheres[hit].eb;
                break;
            }
            ar = c_spheres[hit].ar;
            ag = c_spheres[hit].ag;
            ab = c_spheres[hit].ab;
        }
        thr.x *= ar;
        thr.y *= ag;
        thr.z *= ab;
        if (depth >= 2) {                             // Russian roulette
            float q = fmaxf(thr.x, fmaxf(thr.y, thr.z));
            if (rand01(&rng) >= q) break;
            thr.x /= q;
            thr.y /= q;
            thr.z /= q;
        }
        // a cosine-weighted direction about the normal
        float r1 = 6.2831853f * rand01(&rng);
        float r2 = rand01(&rng);
        float r2s = sqrtf(r2);
        float3 a = fabsf(nrm.x) > 0.1f ? make_float3(0.0f, 1.0f, 0.0f) : make_float3(1.0f, 0.0f, 0.0f);
        float3 tu = make_float3(a.y * nrm.z - a.z * nrm.y, a.z * nrm.x - a.x * nrm.z, a.x * nrm.y - a.y * nrm.x);
        float tl = rsqrtf(tu.x * tu.x + tu.y * tu.y + tu.z * tu.z);
        tu.x *= tl;
        tu.y *= tl;
        tu.z *= tl;
        float3 tv = make_float3(nrm.y * tu.z - nrm.z * tu.y, nrm.z * tu.x - nrm.x * tu.z, nrm.x * tu.y - nrm.y * tu.x);
        float cr = cosf(r1) * r2s;
        float sr = sinf(r1) * r2s;
        float cz = sqrtf(1.0f - r2);
        d = make_float3(tu.x * cr + tv.x * sr + nrm.x * cz, tu.y * cr + tv.y * sr + nrm.y * cz,
                        tu.z * cr + tv.z * sr + nrm.z * cz);
        o = make_float3(hp.x + 1e-3f * nrm.x, hp.y + 1e-3f * nrm.y, hp.z + 1e-3f * nrm.z);
    }
    accum[3 * p] += L.x;
    accum[3 * p + 1] += L.y;
    accum[3 * p + 2] += L.z;
}

// ---- ray casting a mesh ----

// primary rays of a width x height image (pinhole at the origin looking down -z, vertical
// field of view tan_half, unnormalized directions (u, v, -1): t is the view depth) against
// ntris triangles (tris[9 k ..], world space), Moller-Trumbore; the nearest hit's t
// (0 for none) and index (-1), and the hit triangle's |n . light_dir| shade (ambient 0.1)
__global__ void raycast_mesh(const float *tris, int ntris, float *tdepth, int *tri_id, uchar4 *img, float lx,
                             float ly, float lz, float tan_half, int width, int height) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;
    float aspect = (float)width / height;
    float dx = ((x + 0.5f) / width * 2.0f - 1.0f) * aspect * tan_half;
    float dy = (1.0f - (y + 0.5f) / height * 2.0f) * tan_half;
    float dz = -1.0f;
    float best = 1e30f;
    int hit = -1;
    for (int k = 0; k < ntris; k++) {
        const float *T = tris + 9 * k;
        float e1x = T[3] - T[0], e1y = T[4] - T[1], e1z = T[5] - T[2];
        float e2x = T[6] - T[0], e2y = T[7] - T[1], e2z = T[8] - T[2];
        float px = dy * e2z - dz * e2y;
        float py = dz * e2x - dx * e2z;
        float pz = dx * e2y - dy * e2x;
        float det = e1x * px + e1y * py + e1z * pz;
        if (fabsf(det) < 1e-8f) continue;
        float inv = 1.0f / det;
        float sx = -T[0], sy = -T[1], sz = -T[2];        // the origin minus the first vertex
        float u = (sx * px + sy * py + sz * pz) * inv;
        if (u < 0.0f || u > 1.0f) continue;
        float qx = sy * e1z - sz * e1y;
        float qy = sz * e1x - sx * e1z;
        float qz = sx * e1y - sy * e1x;
        float v = (dx * qx + dy * qy + dz * qz) * inv;
        if (v < 0.0f || u + v > 1.0f) continue;
        float t = (e2x * qx + e2y * qy + e2z * qz) * inv;
        if (t > 1e-4f && t < best) {
            best = t;
            hit = k;
        }
    }
    int p = y * width + x;
    if (hit < 0) {
        tdepth[p] = 0.0f;
        tri_id[p] = -1;
        img[p] = make_uchar4(30, 30, 40, 255);
        return;
    }
    const float *T = tris + 9 * hit;
    float e1x = T[3] - T[0], e1y = T[4] - T[1], e1z = T[5] - T[2];
    float e2x = T[6] - T[0], e2y = T[7] - T[1], e2z = T[8] - T[2];
    float nx = e1y * e2z - e1z * e2y;
    float ny = e1z * e2x - e1x * e2z;
    float nz = e1x * e2y - e1y * e2x;
    float nl = rsqrtf(nx * nx + ny * ny + nz * nz);
    float shade = 0.1f + 0.9f * fabsf((nx * lx + ny * ly + nz * lz) * nl);
    unsigned char c = (unsigned char)(fminf(shade, 1.0f) * 255.0f);
    tdepth[p] = best;
    tri_id[p] = hit;
    img[p] = make_uchar4(c, c, c, 255);
}

}
