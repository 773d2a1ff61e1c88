//! The sorting kernels (text of the kernel program, as the rest of `source`), for sorting along a
//! dimension (`ops::sort`): sort, topk, kthvalue, median, mode.
//!
//! Each lane (the elements along the dimension at one position of the others) becomes a row of P
//! (key, position) pairs, P the power of two at or above the lane's length L, padded with the
//! largest key; a bitonic network sorts every row by (key, position), which is the host's order
//! (`Reduce::key` in torch/methods/reduce.rs, ties by position: stable). The padding sorts after
//! every element, even one of the largest key, as its positions are all >= L.

/// The kernels shared by every element type: the keys and the sorting network.
pub const SORT_COMMON: &str = r#"
typedef unsigned long long ull;
// Keys in the order of the values, as the host's `Reduce::key`: NaN above every number (every NaN
// one key), -0 the key of +0, negative numbers below positive ones with larger magnitudes lower.
// Integer operations on the bits only, so that no flush of subnormals or fast-math can change them.
__device__ __forceinline__ ull sort_key_f(float x) {
  unsigned b = __float_as_uint(x);
  if ((b & 0x7fffffffu) > 0x7f800000u) return 0xffffffffULL;
  if ((b & 0x7fffffffu) == 0u) b = 0u;
  return (b & 0x80000000u) ? (ull)(~b) : (ull)(b | 0x80000000u);
}
__device__ __forceinline__ ull sort_key_d(double x) {
  const ull sign = 0x8000000000000000ULL;
  ull b = (ull)__double_as_longlong(x);
  if ((b & ~sign) > 0x7ff0000000000000ULL) return ~0ULL;
  if ((b & ~sign) == 0ULL) b = 0ULL;
  return (b & sign) ? ~b : (b | sign);
}
__device__ __forceinline__ ull sort_key_l(ll x) { return (ull)x ^ 0x8000000000000000ULL; }

// Whether (ka, pa) comes after (kb, pb). Positions differ within a row, so no two pairs are equal.
__device__ __forceinline__ bool sort_after(ull ka, ll pa, ull kb, ll pb) { return ka > kb || (ka == kb && pa > pb); }

// One step of the bitonic network over rows of P pairs: pairs i and i ^ j are put in order,
// increasing where bit k of i's place in its row is clear (always when k = P), decreasing
// elsewhere. j < P, so both lie in one row.
extern "C" __global__ void sort_step(ll total, ll P, ll j, ll k, ull* keys, ll* pos) {
  GRID_LOOP(i, total) {
    ll o = i ^ j;
    if (o > i) {
      bool up = ((i & (P - 1)) & k) == 0;
      ull ki = keys[i], ko = keys[o];
      ll pi = pos[i], po = pos[o];
      if (sort_after(ki, pi, ko, po) == up) {
        keys[i] = ko; keys[o] = ki;
        pos[i] = po; pos[o] = pi;
      }
    }
  }
}

// The steps of distance j < SORT_CHUNK / 2 in shared memory, a block per chunk of SORT_CHUNK
// pairs (such steps never leave a chunk): for k = k0, 2 k0, ... k1, the steps j = k / 2 ... 1
// (j0 ... 1 for k0). With k0 = 2 and k1 = min(P, SORT_CHUNK) this sorts every chunk (rows of
// P <= SORT_CHUNK whole); with k0 = k1 = k and j0 = SORT_CHUNK / 2 it ends stage k.
#define SORT_CHUNK (2 * BLOCK)
extern "C" __global__ void sort_block(ll total, ll P, ll k0, ll k1, ll j0, ull* keys, ll* pos) {
  __shared__ ull sk[SORT_CHUNK];
  __shared__ ll sp[SORT_CHUNK];
  for (ll base = (ll)blockIdx.x * SORT_CHUNK; base < total; base += (ll)gridDim.x * SORT_CHUNK) {
    for (int t = threadIdx.x; t < SORT_CHUNK; t += BLOCK) {
      ll g = base + t;
      sk[t] = g < total ? keys[g] : ~0ULL;
      sp[t] = g < total ? pos[g] : 0;
    }
    __syncthreads();
    for (ll k = k0; k <= k1; k <<= 1) {
      for (ll j = (k == k0 ? j0 : k >> 1); j > 0; j >>= 1) {
        // This thread's pair: the t-th index with bit j clear, and its partner.
        int t = threadIdx.x;
        int i = 2 * t - (t & (int)(j - 1));
        int o = i + (int)j;
        ll g = base + i;
        // Rows lie whole in [0, total): when i is in, so is its partner.
        if (g < total) {
          bool up = ((g & (P - 1)) & k) == 0;
          ull ki = sk[i], ko = sk[o];
          ll pi = sp[i], po = sp[o];
          if (sort_after(ki, pi, ko, po) == up) {
            sk[i] = ko; sk[o] = ki;
            sp[i] = po; sp[o] = pi;
          }
        }
        __syncthreads();
      }
    }
    for (int t = threadIdx.x; t < SORT_CHUNK; t += BLOCK) {
      ll g = base + t;
      if (g < total) { keys[g] = sk[t]; pos[g] = sp[t]; }
    }
    __syncthreads();
  }
}
"#;

/// The sorting kernels of one element type (`_S` and `T` as in PER_TYPE). `ga`, `gr` and `gi` are
/// the input's and results' geometries with the sorted dimension moved last, so that logical
/// index row * L + c is element c of lane `row`.
pub const SORT_PER_TYPE: &str = r#"
// Row `row` of the work buffers: the lane's keys (xor flip: complemented for decreasing order)
// and positions, then padding up to P.
extern "C" __global__ void sort_init_S(ll total, ll P, ll L, const T* a, Geo ga, ull flip, ull* keys, ll* pos) {
  GRID_LOOP(t, total) {
    ll row = t / P;
    ll c = t - row * P;
    keys[t] = c < L ? (sort_key_S(a[off(ga, row * L + c)]) ^ flip) : ~0ULL;
    pos[t] = c;
  }
}

// Results: K elements per lane, the sorted row's from `start` on: the input's values at those
// positions and the positions, 1-based.
extern "C" __global__ void sort_out_S(ll n, ll K, ll start, ll P, ll L, const ll* pos, const T* a, Geo ga,
                                      T* r, Geo gr, ll* ri, Geo gi) {
  GRID_LOOP(t, n) {
    ll row = t / K;
    ll p = pos[row * P + start + (t - row * K)];
    r[off(gr, t)] = a[off(ga, row * L + p)];
    ri[off(gi, t)] = p + 1;
  }
}

// The mode of each sorted row (a thread per row): the longest run of one key, the first (the
// smallest value) among the longest; its last element, the value's last position in the lane.
extern "C" __global__ void sort_mode_S(ll rows, ll P, ll L, const ull* keys, const ll* pos, const T* a, Geo ga,
                                       T* r, Geo gr, ll* ri, Geo gi) {
  GRID_LOOP(row, rows) {
    const ull* k = keys + row * P;
    ll best_end = 0, best_len = 0, start = 0;
    for (ll i = 0; i < L; ++i) {
      if (i + 1 == L || k[i] != k[i + 1]) {
        if (i + 1 - start > best_len) { best_len = i + 1 - start; best_end = i; }
        start = i + 1;
      }
    }
    ll p = pos[row * P + best_end];
    r[off(gr, row)] = a[off(ga, row * L + p)];
    ri[off(gi, row)] = p + 1;
  }
}
"#;
