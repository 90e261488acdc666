// probe-unseen178: a sports analytics / player-tracking data course's CUDA assignments, as a
// student who knows CUDA basics hands them in (football tracking data at 25 Hz, 22 players a
// frame, slots 0-10 the home team attacking towards x = 105, 11-21 the away team, a 105 x 68 m
// pitch with its origin at a corner):
//  - pitch_control: a pitch-control surface (Spearman-style, simplified): for every point of a
//    grid over the pitch in every frame, each player's arrival time (reaction time, then a run
//    at top speed from where his velocity carries him) against the ball's travel time, a
//    logistic control probability a player, the home team's share of the summed control; a
//    block a strip of the grid in one frame, the frame's 22 PlayerState structs staged in
//    shared memory;
//  - track_kinematics: speed and tangential acceleration of every player in every frame from
//    the raw positions by 7-frame Savitzky-Golay (quadratic) derivative filters along time, a
//    thread a (frame, player) sample, frames clamped at the ends of each half (segment);
//  - team_heatmap: the two teams' occupancy heat maps over 2 m cells, a block-private pair of
//    histograms in shared memory filled by shared atomicAdd over a grid-stride loop (dropped
//    and off-pitch samples skipped), then added into the global maps by atomicAdd;
//  - pass_network: a season archive's pass events (PassEvent structs, sorted by match) counted
//    into each match's and team's 11 x 11 passer -> receiver network, the passers' attempts
//    and their progressive passes (completed, >= 10 m towards goal), by global atomicAdd;
//  - xg_model: expected goals of shots (Shot structs) by a fitted logistic regression (the
//    coefficients in __constant__): distance and the angle the goal mouth subtends (atan2f),
//    body part, situation, assist type, defenders in the shooting cone and the goalkeeper's
//    position as a per-thread feature array; penalties given the model's fixed rate;
//  - nearest_opponent: a warp a frame: lane p < 22 holds player p, the opponents' positions
//    passed round by __shfl_sync to find each player's nearest opponent (distance and slot),
//    and the players of each team under pressure (an opponent within 3 m) counted by two
//    __shfl_down_sync reductions.

#define NP 22                 // players a frame (two teams of 11)
#define TEAM 11
#define PITCH_X 105.0f        // the pitch (m)
#define PITCH_Y 68.0f
#define PC_REACT 0.7f         // pitch_control: reaction time (s)
#define PC_VMAX 5.0f          // a player's top speed (m/s)
#define PC_BALL 15.0f         // the ball's speed (m/s)
#define PC_K 4.0307045f       // the logistic's steepness, pi / (sqrt(3) 0.45 s)
#define SG_HALF 3             // track_kinematics: the filter's half width (7 frames)
#define HM_W 53               // team_heatmap: 2 m cells across (the last one 1 m)
#define HM_H 34               // and along
#define HM_CELLS (HM_W * HM_H)
#define PN_PROGRESS 10.0f     // pass_network: a progressive pass gains this much towards goal (m)
#define XG_F 12               // xg_model: features (with the intercept)
#define XG_PEN XG_F           // c_xg[XG_PEN]: a penalty's xG
#define PRESS_R2 9.0f         // nearest_opponent: pressure radius squared (3 m)

struct PlayerState {
    float x, y;      // m
    float vx, vy;    // m/s
};

struct PassEvent {
    int match;
    int team;        // 0 home, 1 away
    int passer;      // the team's slot 0-10
    int receiver;    // the team's slot 0-10, -1 when the pass was not completed
    float x0, y0;    // where it started (m, normalised: the team attacks towards x = 105)
    float x1, y1;    // where it ended
};

struct Shot {
    float x, y;      // m, normalised: the goal's centre at (105, 34)
    float gk_dist;   // the goalkeeper's distance off his line (m)
    int body;        // 0 foot, 1 head, 2 other
    int situation;   // 0 open play, 1 counter attack, 2 set piece, 3 direct free kick, 4 penalty
    int assist;      // 0 none, 1 pass, 2 cross, 3 through ball
    int defenders;   // defenders in the triangle of the ball and the posts
    int minute;
};

// xg_model's logistic regression coefficients (set by the host), in xg_model's feature order
// (intercept, distance, angle, distance^2, head, head x distance, counter attack, set piece,
// direct free kick, through ball, defenders, goalkeeper off his line), then a penalty's xG
__constant__ float c_xg[XG_F + 1];

extern "C" {

// the home team's share of control at each point ((i % gw + 0.5) cell, (i / gw + 0.5) cell) of a
// gw x gh grid in frame blockIdx.y: pc[frame * gw * gh + i]; players NP a frame, ball (x, y) a frame
__global__ void pitch_control(const PlayerState *players, const float *ball, float *pc, int gw, int gh,
                              float cell) {
    __shared__ PlayerState sp[NP];
    int f = blockIdx.y;
    if (threadIdx.x < NP) {
        PlayerState p = players[f * NP + threadIdx.x];
        p.x += p.vx * PC_REACT;          // where he is when he reacts
        p.y += p.vy * PC_REACT;
        sp[threadIdx.x] = p;
    }
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= gw * gh) return;
    float tx = (i % gw + 0.5f) * cell;
    float ty = (i / gw + 0.5f) * cell;
    float bx = ball[2 * f] - tx;
    float by = ball[2 * f + 1] - ty;
    float tball = sqrtf(bx * bx + by * by) / PC_BALL;
    float att = 0.0f;
    float def = 0.0f;
    for (int k = 0; k < NP; k++) {
        float dx = tx - sp[k].x;
        float dy = ty - sp[k].y;
        float tau = PC_REACT + sqrtf(dx * dx + dy * dy) / PC_VMAX;
        float ctrl = 1.0f / (1.0f + expf(-PC_K * (tball - tau)));
        if (k < TEAM)
            att += ctrl;
        else
            def += ctrl;
    }
    float tot = att + def;
    pc[f * gw * gh + i] = tot > 0.0f ? att / tot : 0.5f;
}

// speed (m/s) and tangential acceleration (m/s^2) of sample i = frame * NP + player, positions
// x, y (m) at fps frames a second; frames clamped to the sample's segment of seg frames (a half)
__global__ void track_kinematics(const float *x, const float *y, float *speed, float *accel, int frames, int seg,
                                 float fps) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= frames * NP) return;
    int f = i / NP;
    int p = i - f * NP;
    int lo = f / seg * seg;
    int hi = min(lo + seg, frames) - 1;
    float vx = 0.0f, vy = 0.0f, ax = 0.0f, ay = 0.0f;
    for (int k = -SG_HALF; k <= SG_HALF; k++) {
        int g = min(max(f + k, lo), hi);
        float xv = x[g * NP + p];
        float yv = y[g * NP + p];
        float w1 = (float)k;                 // first derivative: k / 28
        float w2 = (float)(k * k - 4);       // second derivative: (k^2 - 4) / 42
        vx += w1 * xv;
        vy += w1 * yv;
        ax += w2 * xv;
        ay += w2 * yv;
    }
    vx *= fps / 28.0f;
    vy *= fps / 28.0f;
    ax *= fps * fps / 42.0f;
    ay *= fps * fps / 42.0f;
    float s = sqrtf(vx * vx + vy * vy);
    speed[i] = s;
    accel[i] = s > 0.0f ? (vx * ax + vy * ay) / s : 0.0f;
}

// the samples (x, y: n of them, NP a frame; NaN where the tracking dropped out) counted into
// heat[team * HM_CELLS + cy * HM_W + cx] for the 2 m cell (cx, cy) they fall in, off-pitch ones skipped
__global__ void team_heatmap(const float *x, const float *y, unsigned int *heat, int n) {
    __shared__ unsigned int h[2 * HM_CELLS];
    for (int c = threadIdx.x; c < 2 * HM_CELLS; c += blockDim.x) h[c] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        float px = x[i];
        float py = y[i];
        if (px >= 0.0f && px < PITCH_X && py >= 0.0f && py < PITCH_Y) {
            int team = i % NP >= TEAM ? 1 : 0;
            int cx = (int)(px * 0.5f);
            int cy = (int)(py * 0.5f);
            atomicAdd(&h[team * HM_CELLS + cy * HM_W + cx], 1u);
        }
    }
    __syncthreads();
    for (int c = threadIdx.x; c < 2 * HM_CELLS; c += blockDim.x)
        if (h[c] > 0) atomicAdd(&heat[c], h[c]);
}

// n passes: links[((match * 2 + team) * TEAM + passer) * TEAM + receiver] the completed ones,
// attempts[(match * 2 + team) * TEAM + passer] all, progressive[...] the completed ones gaining
// PN_PROGRESS towards goal
__global__ void pass_network(const PassEvent *ev, int *links, int *attempts, int *progressive, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    PassEvent e = ev[i];
    int who = (e.match * 2 + e.team) * TEAM + e.passer;
    atomicAdd(&attempts[who], 1);
    if (e.receiver >= 0) {
        atomicAdd(&links[who * TEAM + e.receiver], 1);
        if (e.x1 - e.x0 >= PN_PROGRESS) atomicAdd(&progressive[who], 1);
    }
}

// the expected goals of n shots: 1 / (1 + exp(-sum c_xg[k] f[k])) over the features f, a penalty c_xg[XG_PEN]
__global__ void xg_model(const Shot *shots, float *xg, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    Shot s = shots[i];
    if (s.situation == 4) {
        xg[i] = c_xg[XG_PEN];
        return;
    }
    float dx = PITCH_X - s.x;
    float dy = s.y - 0.5f * PITCH_Y;
    float dist = sqrtf(dx * dx + dy * dy);
    // the angle between the lines to the posts (7.32 m apart)
    float angle = atan2f(7.32f * dx, dx * dx + dy * dy - 3.66f * 3.66f);
    float f[XG_F];
    f[0] = 1.0f;
    f[1] = dist;
    f[2] = angle;
    f[3] = dist * dist;
    f[4] = s.body == 1 ? 1.0f : 0.0f;
    f[5] = f[4] * dist;
    f[6] = s.situation == 1 ? 1.0f : 0.0f;
    f[7] = s.situation == 2 ? 1.0f : 0.0f;
    f[8] = s.situation == 3 ? 1.0f : 0.0f;
    f[9] = s.assist == 3 ? 1.0f : 0.0f;
    f[10] = (float)s.defenders;
    f[11] = s.gk_dist;
    float z = 0.0f;
    for (int k = 0; k < XG_F; k++) z += c_xg[k] * f[k];
    xg[i] = 1.0f / (1.0f + expf(-z));
}

// frame w = global thread / 32 (positions x, y NP a frame): near[w * NP + p] the distance to
// player p's nearest opponent, near_id[w * NP + p] its slot (the first of equals),
// pressed[2 w + team] the team's players with an opponent within 3 m (blockDim.x a multiple of 32)
__global__ void nearest_opponent(const float *x, const float *y, float *near, int *near_id, int *pressed,
                                 int frames) {
    int w = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x % 32;
    if (w >= frames) return;       // whole warps
    float px = 0.0f, py = 0.0f;
    if (lane < NP) {
        px = x[w * NP + lane];
        py = y[w * NP + lane];
    }
    int opp = lane < TEAM ? TEAM : 0;
    float best = FLT_MAX;
    int bi = -1;
    int close = 0;
    for (int j = 0; j < TEAM; j++) {
        float ox = __shfl_sync(0xffffffff, px, opp + j);
        float oy = __shfl_sync(0xffffffff, py, opp + j);
        float dx = ox - px;
        float dy = oy - py;
        float d2 = dx * dx + dy * dy;
        if (d2 < best) {
            best = d2;
            bi = opp + j;
        }
        if (d2 < PRESS_R2) close++;
    }
    int home = lane < TEAM && close > 0 ? 1 : 0;
    int away = lane >= TEAM && lane < NP && close > 0 ? 1 : 0;
    for (int o = 16; o > 0; o >>= 1) {
        home += __shfl_down_sync(0xffffffff, home, o);
        away += __shfl_down_sync(0xffffffff, away, o);
    }
    if (lane < NP) {
        near[w * NP + lane] = sqrtf(best);
        near_id[w * NP + lane] = bi;
    }
    if (lane == 0) {
        pressed[2 * w] = home;
        pressed[2 * w + 1] = away;
    }
}

}
