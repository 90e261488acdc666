// probe-unseen102: a reinforcement-learning course's CUDA assignments (batched environments
// and tabular / approximate learners), as a student who knows CUDA basics hands them in.
// The random numbers come from a counter-based hash (PCG's output permutation), so every
// draw is a pure function of (seed, thread, step) and the host can replay it.
//
//   cartpole_rollout   many CartPole environments (Gym's dynamics and thresholds, Euler
//                      steps of 0.02 s) stepped in parallel for an evolution-strategies
//                      evaluation: a thread an environment with its own perturbed linear
//                      policy (4 weights, row-major), `steps` steps, each an epsilon-greedy
//                      choice between the policy's push and a random one; a pole that
//                      falls, a cart that leaves the track or an episode of CP_MAX_LEN
//                      steps ends the episode: its return (1 a step) is added to the
//                      environment's total, its count bumped, and the state reset from 4
//                      hashed uniforms in +-0.05 (divergent)
//   qlearn_step        one step of tabular Q-learning by n agents in a 64 x 64 gridworld
//                      (free cells, walls, goals +1 and pits -1, both terminal; a step
//                      costs 0.01): a thread an agent, epsilon-greedy on a snapshot Q (4
//                      actions a state, the first maximum), the move (blocked by walls and
//                      the border), the TD error r + gamma max Q(s') - Q(s, a) times alpha
//                      added to dQ[s, a] and the visit counted by atomicAdd (the host adds
//                      dQ to Q after the launch: synchronous batched Q-learning); an agent
//                      that ends its episode restarts at a hashed start cell
//   value_iter_tile    one sweep of value iteration on a slippery n x n gridworld (the
//                      intended move with probability 0.8, each perpendicular one 0.1, the
//                      border reflecting), 16 x 16 tiles of V staged in shared memory with a
//                      one-cell halo (clamped at the border: a move off the grid stays), the
//                      cell's reward from a __constant__ table by its type (goals and pits
//                      absorbing); each block's largest |V' - V| by warp shuffles and shared
//                      memory, for the host's convergence test
//   gae_returns        generalized advantage estimation over a PPO rollout stored time-major
//                      (T x n_envs): a thread an environment, a backward loop over the T
//                      steps, the bootstrap cut at episode ends; the advantages and the
//                      returns (advantage + value) written
//   per_sample         prioritized experience replay: a thread a sample of the batch,
//                      stratified (segment i of the total priority, a hashed offset in it),
//                      the descent of a sum tree (heap layout, the leaves the buffer's
//                      priorities) to its transition, the importance-sampling weight
//                      (p / p_min)^-beta, then the transition's observation, next
//                      observation (MLP_OBS floats each), action, reward and done flag
//                      gathered into the batch
//   policy_forward     a policy network's forward pass and action sampling for a batch of
//                      observations (8 -> 64 tanh -> 64 tanh -> 4 logits): the weights in
//                      __constant__ memory (20 KB, copied by the host after each update), a
//                      thread an observation with its hidden layers in per-thread arrays, a
//                      softmax, an action sampled by a hashed uniform against the cumulative
//                      probabilities; the action and its log-probability stored

#define CP_MAX_LEN 500      // cartpole_rollout: steps an episode at most (Gym's CartPole-v1)
#define QL_W 64             // qlearn_step: the gridworld's side
#define VI_T 16             // value_iter_tile: the tile's side (blockDim 16 x 16)
#define MLP_OBS 8           // policy_forward / per_sample: the observation's floats
#define MLP_H 64            // policy_forward: hidden units a layer
#define MLP_A 4             // policy_forward: actions

// value_iter_tile's reward of a cell by type: free, goal (terminal), pit (terminal), mud
__constant__ float c_vi_reward[4] = {-0.04f, 1.0f, -1.0f, -0.5f};

// policy_forward's network (set by the host with cudaMemcpyToSymbol after each update)
__constant__ float c_W1[MLP_H * MLP_OBS];
__constant__ float c_b1[MLP_H];
__constant__ float c_W2[MLP_H * MLP_H];
__constant__ float c_b2[MLP_H];
__constant__ float c_W3[MLP_A * MLP_H];
__constant__ float c_b3[MLP_A];

extern "C" {

// PCG's output permutation of one 32-bit state: the course's hash RNG
__device__ unsigned int pcg_hash(unsigned int v) {
    unsigned int state = v * 747796405u + 2891336453u;
    unsigned int word = ((state >> ((state >> 28u) + 4u)) ^ state) * 277803737u;
    return (word >> 22u) ^ word;
}

// a uniform float in [0, 1) from a hash's top 24 bits
__device__ float rand01(unsigned int h) {
    return (h >> 8) * (1.0f / 16777216.0f);
}

// `steps` steps of n CartPole environments (state x, x', theta, theta' in 4 arrays), env i
// acting by the sign of W[4i ..] . state (push right when > 0), with probability eps a
// random push instead; draws from pcg_hash(seed + 8 (i steps + t) + k)
__global__ void cartpole_rollout(float *X, float *XD, float *TH, float *THD, int *ep_len, float *ret_sum,
                                 int *episodes, const float *W, float eps, unsigned int seed, int steps, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float gravity = 9.8f;
    const float masspole = 0.1f;
    const float total_mass = 1.1f;
    const float length = 0.5f;
    const float polemass_length = 0.05f;
    const float force_mag = 10.0f;
    const float tau = 0.02f;
    const float theta_limit = 0.20943951f;       // 12 degrees
    const float x_limit = 2.4f;

    float x = X[i];
    float xd = XD[i];
    float th = TH[i];
    float thd = THD[i];
    float w0 = W[4 * i];
    float w1 = W[4 * i + 1];
    float w2 = W[4 * i + 2];
    float w3 = W[4 * i + 3];
    int len = ep_len[i];
    float total = ret_sum[i];
    int eps_done = episodes[i];

    for (int t = 0; t < steps; t++) {
        unsigned int c = seed + 8u * ((unsigned int)i * steps + t);
        unsigned int h = pcg_hash(c);
        int action;
        if (rand01(h) < eps) {
            action = h & 1;
        } else {
            action = (w0 * x + w1 * xd + w2 * th + w3 * thd) > 0.0f ? 1 : 0;
        }
        float force = action == 1 ? force_mag : -force_mag;
        float costh = cosf(th);
        float sinth = sinf(th);
        float temp = (force + polemass_length * thd * thd * sinth) / total_mass;
        float thacc = (gravity * sinth - costh * temp) /
                      (length * (4.0f / 3.0f - masspole * costh * costh / total_mass));
        float xacc = temp - polemass_length * thacc * costh / total_mass;
        x = x + tau * xd;
        xd = xd + tau * xacc;
        th = th + tau * thd;
        thd = thd + tau * thacc;
        len++;
        if (x < -x_limit || x > x_limit || th < -theta_limit || th > theta_limit || len >= CP_MAX_LEN) {
            total += (float)len;
            eps_done++;
            len = 0;
            x = rand01(pcg_hash(c + 1u)) * 0.1f - 0.05f;
            xd = rand01(pcg_hash(c + 2u)) * 0.1f - 0.05f;
            th = rand01(pcg_hash(c + 3u)) * 0.1f - 0.05f;
            thd = rand01(pcg_hash(c + 4u)) * 0.1f - 0.05f;
        }
    }
    X[i] = x;
    XD[i] = xd;
    TH[i] = th;
    THD[i] = thd;
    ep_len[i] = len;
    ret_sum[i] = total;
    episodes[i] = eps_done;
}

// one Q-learning step of n agents in the QL_W x QL_W gridworld `cells` (0 free, 1 wall, 2
// goal, 3 pit); agent i in state[i] (y QL_W + x); actions 0 up, 1 right, 2 down, 3 left;
// Q (QL_W^2 x 4) read only, alpha times the TD error added to dQ, visits counted in N;
// draws pcg_hash(seed + 4 i + k)
__global__ void qlearn_step(const float *Q, float *dQ, int *N, const unsigned char *cells, int *state,
                            const int *starts, int n_starts, float alpha, float gamma, float eps,
                            unsigned int seed, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int s = state[i];
    unsigned int c = seed + 4u * (unsigned int)i;

    // epsilon-greedy
    int a;
    if (rand01(pcg_hash(c)) < eps) {
        a = pcg_hash(c + 1u) & 3;
    } else {
        a = 0;
        float best = Q[s * 4];
        for (int k = 1; k < 4; k++) {
            if (Q[s * 4 + k] > best) {
                best = Q[s * 4 + k];
                a = k;
            }
        }
    }

    // the move
    int x = s % QL_W;
    int y = s / QL_W;
    int nx = x;
    int ny = y;
    if (a == 0) ny = y - 1;
    else if (a == 1) nx = x + 1;
    else if (a == 2) ny = y + 1;
    else nx = x - 1;
    int s2 = s;
    if (nx >= 0 && nx < QL_W && ny >= 0 && ny < QL_W && cells[ny * QL_W + nx] != 1) s2 = ny * QL_W + nx;

    float r = -0.01f;
    bool terminal = false;
    if (cells[s2] == 2) {
        r = 1.0f;
        terminal = true;
    } else if (cells[s2] == 3) {
        r = -1.0f;
        terminal = true;
    }

    float target = r;
    if (!terminal) {
        float m = Q[s2 * 4];
        for (int k = 1; k < 4; k++) m = fmaxf(m, Q[s2 * 4 + k]);
        target = r + gamma * m;
    }
    atomicAdd(&dQ[s * 4 + a], alpha * (target - Q[s * 4 + a]));
    atomicAdd(&N[s * 4 + a], 1);

    if (terminal) s2 = starts[pcg_hash(c + 2u) % n_starts];
    state[i] = s2;
}

// one value-iteration sweep on the n x n grid `cells` (types indexing c_vi_reward; 1 and 2
// terminal), V (row-major) to V_new: V'(s) = r(s) + gamma max_a (0.8 V(a's cell) + 0.1 V
// of each perpendicular move's cell); terminal cells' value their reward; each block's
// largest |V' - V| into resid[block] (blockIdx.y gridDim.x + blockIdx.x)
__global__ void value_iter_tile(const float *V, const unsigned char *cells, float *V_new, float *resid, float gamma,
                                int n) {
    __shared__ float tile[VI_T + 2][VI_T + 2];
    __shared__ float warp_max[VI_T * VI_T / 32];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int gx = blockIdx.x * VI_T + tx;
    int gy = blockIdx.y * VI_T + ty;

    // the tile and its halo (neighbours off the grid clamped to the edge: the move stays)
    tile[ty + 1][tx + 1] = V[gy * n + gx];
    if (tx == 0) tile[ty + 1][0] = V[gy * n + max(gx - 1, 0)];
    if (tx == VI_T - 1) tile[ty + 1][VI_T + 1] = V[gy * n + min(gx + 1, n - 1)];
    if (ty == 0) tile[0][tx + 1] = V[max(gy - 1, 0) * n + gx];
    if (ty == VI_T - 1) tile[VI_T + 1][tx + 1] = V[min(gy + 1, n - 1) * n + gx];
    __syncthreads();

    int type = cells[gy * n + gx];
    float r = c_vi_reward[type];
    float v_old = tile[ty + 1][tx + 1];
    float v;
    if (type == 1 || type == 2) {
        v = r;
    } else {
        float nb[4];
        nb[0] = tile[ty][tx + 1];         // up
        nb[1] = tile[ty + 1][tx + 2];     // right
        nb[2] = tile[ty + 2][tx + 1];     // down
        nb[3] = tile[ty + 1][tx];         // left
        float best = -1e30f;
        for (int a = 0; a < 4; a++) {
            float q = 0.8f * nb[a] + 0.1f * nb[(a + 1) % 4] + 0.1f * nb[(a + 3) % 4];
            best = fmaxf(best, q);
        }
        v = r + gamma * best;
    }
    V_new[gy * n + gx] = v;

    // the block's largest change
    float d = fabsf(v - v_old);
    for (int o = 16; o > 0; o >>= 1) d = fmaxf(d, __shfl_xor_sync(0xffffffff, d, o));
    int tid = ty * VI_T + tx;
    if (tid % 32 == 0) warp_max[tid / 32] = d;
    __syncthreads();
    if (tid == 0) {
        float m = warp_max[0];
        for (int k = 1; k < VI_T * VI_T / 32; k++) m = fmaxf(m, warp_max[k]);
        resid[blockIdx.y * gridDim.x + blockIdx.x] = m;
    }
}

// GAE(gamma, lambda) over a rollout of T steps of n environments, time-major (rew, done:
// T x n; val: (T + 1) x n, the last row the bootstrap values); adv and ret T x n
__global__ void gae_returns(const float *rew, const float *val, const unsigned char *done, float *adv, float *ret,
                            float gamma, float lam, int T, int n) {
    int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= n) return;
    float A = 0.0f;
    float v_next = val[T * n + e];
    for (int t = T - 1; t >= 0; t--) {
        int k = t * n + e;
        float v = val[k];
        float not_done = done[k] ? 0.0f : 1.0f;
        float delta = rew[k] + gamma * v_next * not_done - v;
        A = delta + gamma * lam * not_done * A;
        adv[k] = A;
        ret[k] = A + v;
        v_next = v;
    }
}

// a prioritized-replay batch of n samples from a full buffer of cap transitions (cap a
// power of 2): tree[1 .. 2 cap) the sum tree (tree[k] = tree[2k] + tree[2k+1], the leaves
// tree[cap + j] transition j's priority); sample i's point (i + u) tree[1] / n, u hashed
// from seed + i; the transition's index, weight (p / p_min)^-beta and fields gathered
__global__ void per_sample(const float *tree, const float *obs, const float *next_obs, const int *act,
                           const float *rew, const unsigned char *done, float *b_obs, float *b_next, int *b_act,
                           float *b_rew, unsigned char *b_done, int *b_idx, float *b_w, float p_min, float beta,
                           unsigned int seed, int cap, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float total = tree[1];
    float seg = total / n;
    float u = ((float)i + rand01(pcg_hash(seed + i))) * seg;
    int idx = 1;
    while (idx < cap) {
        float left = tree[2 * idx];
        if (u <= left) {
            idx = 2 * idx;
        } else {
            u -= left;
            idx = 2 * idx + 1;
        }
    }
    int j = idx - cap;
    float p = tree[idx];
    b_idx[i] = j;
    b_w[i] = powf(p / p_min, -beta);
    for (int d = 0; d < MLP_OBS; d++) {
        b_obs[i * MLP_OBS + d] = obs[j * MLP_OBS + d];
        b_next[i * MLP_OBS + d] = next_obs[j * MLP_OBS + d];
    }
    b_act[i] = act[j];
    b_rew[i] = rew[j];
    b_done[i] = done[j];
}

// the policy MLP on n observations (obs row-major n x MLP_OBS): h1 = tanh(W1 x + b1), h2 =
// tanh(W2 h1 + b2), logits W3 h2 + b3 (the c_ weights, row-major out x in); the action
// sampled from the softmax by u = rand01(pcg_hash(seed + i)) (the first action whose
// cumulative probability exceeds u, else the last), and its log-probability
__global__ void policy_forward(const float *obs, int *action, float *logp, unsigned int seed, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x[MLP_OBS];
    for (int d = 0; d < MLP_OBS; d++) x[d] = obs[i * MLP_OBS + d];

    float h1[MLP_H];
    for (int j = 0; j < MLP_H; j++) {
        float s = c_b1[j];
        for (int d = 0; d < MLP_OBS; d++) s += c_W1[j * MLP_OBS + d] * x[d];
        h1[j] = tanhf(s);
    }
    float h2[MLP_H];
    for (int j = 0; j < MLP_H; j++) {
        float s = c_b2[j];
        for (int k = 0; k < MLP_H; k++) s += c_W2[j * MLP_H + k] * h1[k];
        h2[j] = tanhf(s);
    }
    float logits[MLP_A];
    for (int a = 0; a < MLP_A; a++) {
        float s = c_b3[a];
        for (int k = 0; k < MLP_H; k++) s += c_W3[a * MLP_H + k] * h2[k];
        logits[a] = s;
    }

    float m = logits[0];
    for (int a = 1; a < MLP_A; a++) m = fmaxf(m, logits[a]);
    float sum = 0.0f;
    float p[MLP_A];
    for (int a = 0; a < MLP_A; a++) {
        p[a] = expf(logits[a] - m);
        sum += p[a];
    }
    float u = rand01(pcg_hash(seed + i));
    int chosen = MLP_A - 1;
    float cum = 0.0f;
    for (int a = 0; a < MLP_A; a++) {
        cum += p[a] / sum;
        if (u < cum) {
            chosen = a;
            break;
        }
    }
    action[i] = chosen;
    logp[i] = logits[chosen] - m - logf(sum);
}

}
