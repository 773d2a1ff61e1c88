//! The kernels of nn's window passes on device tensors (cunn), the device side of the host's
//! `torch::kernels::nn` and `nn::pool` with the same contracts: unfold (im2col) and fold (col2im)
//! between images and columns, and max pooling with the maxima's positions and its gradient.
//! Operands are contiguous; a geometry is `NnWin`, three dimensions (fewer padded in front with
//! extents of one), as `torch::kernels::nn::Windows`. Text only: `source::program` adds it.

/// What every element type's kernels share: the geometry and splitting an index over it.
pub const NN_COMMON: &str = r#"
struct NnWin { ll size[3]; ll k[3]; ll d[3]; ll pad[3]; ll dil[3]; ll out[3]; };
// i (row-major over extents n[0..3]) as coordinates.
__device__ __forceinline__ void nn_split3(ll i, const ll* n, ll* c) {
  c[2] = i % n[2]; i /= n[2]; c[1] = i % n[1]; c[0] = i / n[1];
}
"#;

/// One element type's kernels (`T`, names ending in `_S`).
///
/// Columns are laid out as the host's `column_row`: with `batch` images of C = L / batch planes,
/// row (c, kk) of image n starts at ((c*K + kk)*batch + n)*O. fold gathers (one thread per
/// image element sums the columns that read it) rather than scattering, so that it needs no
/// atomics and adds in a fixed order. Max pooling: padding is skipped, ties go to the first
/// element in the window, a NaN (the first one) beats every number, and an empty window gives
/// -inf at position 0 (the host's rules); its gradient adds into planes cleared first
/// (`nn_zero`), atomically since overlapping windows may share a maximum.
pub const NN_PER_TYPE: &str = r#"
extern "C" __global__ void nn_unfold_S(ll total, const T* x, T* cols, NnWin w, ll L, ll batch) {
  ll K = w.k[0] * w.k[1] * w.k[2], O = w.out[0] * w.out[1] * w.out[2], S = w.size[0] * w.size[1] * w.size[2];
  ll C = L / batch;
  GRID_LOOP(i, total) {
    ll o = i % O, t = i / O, kk = t % K, plane = t / K;
    ll oc[3], kc[3];
    nn_split3(o, w.out, oc);
    nn_split3(kk, w.k, kc);
    ll at = 0;
    bool inside = true;
    for (int j = 0; j < 3; ++j) {
      ll p = oc[j] * w.d[j] + kc[j] * w.dil[j] - w.pad[j];
      inside = inside && p >= 0 && p < w.size[j];
      at = at * w.size[j] + p;
    }
    ll n = plane / C, c = plane % C;
    cols[((c * K + kk) * batch + n) * O + o] = inside ? x[plane * S + at] : (T)0;
  }
}

extern "C" __global__ void nn_fold_S(ll total, T* x, const T* cols, NnWin w, ll L, ll batch) {
  ll K = w.k[0] * w.k[1] * w.k[2], O = w.out[0] * w.out[1] * w.out[2], S = w.size[0] * w.size[1] * w.size[2];
  ll C = L / batch;
  GRID_LOOP(i, total) {
    ll s = i % S, plane = i / S;
    ll pc[3];
    nn_split3(s, w.size, pc);
    ll n = plane / C, c = plane % C;
    T acc = (T)0;
    for (ll kk = 0; kk < K; ++kk) {
      ll kc[3];
      nn_split3(kk, w.k, kc);
      ll o = 0;
      bool hit = true;
      for (int j = 0; j < 3; ++j) {
        ll q = pc[j] + w.pad[j] - kc[j] * w.dil[j];
        hit = hit && q >= 0 && q % w.d[j] == 0 && q / w.d[j] < w.out[j];
        o = o * w.out[j] + (q >= 0 ? q / w.d[j] : 0);
      }
      if (hit) acc += cols[((c * K + kk) * batch + n) * O + o];
    }
    x[i] += acc;
  }
}

extern "C" __global__ void nn_maxpool_S(ll total, const T* x, T* values, ll* pos, NnWin w) {
  ll O = w.out[0] * w.out[1] * w.out[2], S = w.size[0] * w.size[1] * w.size[2];
  GRID_LOOP(i, total) {
    ll o = i % O, plane = i / O;
    ll oc[3];
    nn_split3(o, w.out, oc);
    const T* src = x + plane * S;
    T m = (T)0;
    ll g = -1, nan_at = -1;
    for (ll a = 0; a < w.k[0]; ++a) {
      ll p0 = oc[0] * w.d[0] + a * w.dil[0] - w.pad[0];
      if (p0 < 0 || p0 >= w.size[0]) continue;
      for (ll b = 0; b < w.k[1]; ++b) {
        ll p1 = oc[1] * w.d[1] + b * w.dil[1] - w.pad[1];
        if (p1 < 0 || p1 >= w.size[1]) continue;
        for (ll c = 0; c < w.k[2]; ++c) {
          ll p2 = oc[2] * w.d[2] + c * w.dil[2] - w.pad[2];
          if (p2 < 0 || p2 >= w.size[2]) continue;
          ll at = (p0 * w.size[1] + p1) * w.size[2] + p2;
          T e = src[at];
          if (e != e) {
            if (nan_at < 0) nan_at = at;
          } else if (g < 0 || e > m) {
            m = e;
            g = at;
          }
        }
      }
    }
    if (nan_at >= 0) { values[i] = src[nan_at]; pos[i] = nan_at + 1; }
    else if (g < 0) { values[i] = (T)(-INF_D); pos[i] = 0; }
    else { values[i] = m; pos[i] = g + 1; }
  }
}

extern "C" __global__ void nn_zero_S(ll n, T* p) {
  GRID_LOOP(i, n) p[i] = (T)0;
}

extern "C" __global__ void nn_maxpool_back_S(ll total, T* gx, const T* gy, const ll* pos, ll S, ll O) {
  GRID_LOOP(i, total) {
    ll plane = i / O, p = pos[i] - 1;
    if (p >= 0 && p < S) add_at(gx + plane * S + p, gy[i]);
  }
}
"#;

/// The kernels of one element type, by name without the type suffix.
pub const NN_KERNELS: [&str; 5] = ["nn_unfold", "nn_fold", "nn_maxpool", "nn_zero", "nn_maxpool_back"];
