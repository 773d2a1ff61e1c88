//! Torch7's random number generator: MT19937 seeded the way Torch seeds it, 32-bit uniform
//! resolution, Box-Muller normals with a cached second value, and the discrete algorithms
//! (randperm, multinomial) whose draw order decides the sequences a seed gives. Everything here is
//! plain Rust; `methods/random.rs` puts it behind the Lua API.
//!
//! The state is kept in the same fields, with the same widths, as Torch's generator struct so that
//! `torch.getRNGState()` can hand out (and take back) the same 5048 bytes Torch does on x86_64.

use std::f64::consts::PI;
use std::io::Read;

use crate::error::{Error, Result};

/// Words of MT19937 state.
pub const STATE_N: usize = 624;
/// MT19937's middle word offset.
const STATE_M: usize = 397;
const MATRIX_A: u64 = 0x9908_b0df;
const UPPER_MASK: u64 = 0x8000_0000;
const LOWER_MASK: u64 = 0x7fff_ffff;

/// Size of Torch's generator struct on LP64 (x86_64 Linux): the size of the state ByteTensor.
pub const STATE_BYTES: usize = 5048;

// Byte offsets of the fields in that struct (C layout, LP64, little-endian).
const OFF_INITIAL_SEED: usize = 0;
const OFF_LEFT: usize = 8;
const OFF_SEEDED: usize = 12;
const OFF_NEXT: usize = 16;
const OFF_STATE: usize = 24;
const OFF_NORMAL_X: usize = OFF_STATE + 8 * STATE_N;
const OFF_NORMAL_Y: usize = OFF_NORMAL_X + 8;
const OFF_NORMAL_RHO: usize = OFF_NORMAL_Y + 8;
const OFF_NORMAL_VALID: usize = OFF_NORMAL_RHO + 8;

/// One random stream. Field widths follow Torch's C struct (`unsigned long` words, `int` flags),
/// so that a state read back from bytes behaves exactly as it would in Torch.
#[derive(Clone, Debug, PartialEq)]
pub struct Generator {
    initial_seed: u64,
    /// Draws left before the state is twisted again.
    left: i32,
    seeded: i32,
    /// Index of the next state word to temper.
    next: u64,
    state: [u64; STATE_N],
    normal_x: f64,
    normal_y: f64,
    normal_rho: f64,
    normal_is_valid: i32,
}

/// A 64-bit seed from /dev/urandom, kept below 2^53 so that it survives the trip through a Lua
/// number: `torch.manualSeed(torch.seed())` then reproduces the stream exactly. (Torch hands out
/// all 64 bits, which a Lua number cannot hold; only the low 32 bits ever reach the state.)
pub fn urandom_seed() -> std::io::Result<u64> {
    let mut bytes = [0u8; 8];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut bytes)?;
    Ok(u64::from_le_bytes(bytes) & ((1u64 << 53) - 1))
}

/// A seed for when /dev/urandom cannot be read: the clock (what Torch uses on Windows).
fn clock_seed() -> u64 {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    (now.as_secs() ^ u64::from(now.subsec_nanos())) & ((1u64 << 53) - 1)
}

impl Generator {
    /// The state of a freshly allocated, unseeded Torch generator (all zero, one draw "left").
    fn blank() -> Generator {
        Generator {
            initial_seed: 0,
            left: 1,
            seeded: 0,
            next: 0,
            state: [0; STATE_N],
            normal_x: 0.0,
            normal_y: 0.0,
            normal_rho: 0.0,
            normal_is_valid: 0,
        }
    }

    pub fn with_seed(seed: u64) -> Generator {
        let mut g = Generator::blank();
        g.manual_seed(seed);
        g
    }

    /// A generator seeded from /dev/urandom (the clock if that fails), as `torch.Generator()`
    /// and the default generator at startup are.
    pub fn from_entropy() -> Generator {
        Generator::with_seed(urandom_seed().unwrap_or_else(|_| clock_seed()))
    }

    /// Reseeds: every field is reset first (the cached normal too), then the standard MT19937
    /// initialisation runs on the low 32 bits of the seed. The whole seed is remembered.
    pub fn manual_seed(&mut self, seed: u64) {
        *self = Generator::blank();
        self.initial_seed = seed;
        self.state[0] = seed & 0xffff_ffff;
        for j in 1..STATE_N {
            let prev = self.state[j - 1];
            self.state[j] = 1_812_433_253u64
                .wrapping_mul(prev ^ (prev >> 30))
                .wrapping_add(j as u64)
                & 0xffff_ffff;
        }
        self.left = 1;
        self.seeded = 1;
    }

    pub fn initial_seed(&self) -> u64 {
        self.initial_seed
    }

    fn twist(u: u64, v: u64) -> u64 {
        let mixed = (u & UPPER_MASK) | (v & LOWER_MASK);
        (mixed >> 1) ^ if v & 1 != 0 { MATRIX_A } else { 0 }
    }

    /// Regenerates all 624 words at once.
    fn next_state(&mut self) {
        self.left = STATE_N as i32;
        self.next = 0;
        let s = &mut self.state;
        for i in 0..STATE_N - STATE_M {
            s[i] = s[i + STATE_M] ^ Self::twist(s[i], s[i + 1]);
        }
        for i in STATE_N - STATE_M..STATE_N - 1 {
            s[i] = s[i + STATE_M - STATE_N] ^ Self::twist(s[i], s[i + 1]);
        }
        s[STATE_N - 1] = s[STATE_M - 1] ^ Self::twist(s[STATE_N - 1], s[0]);
    }

    /// One tempered output: 32 random bits (wider only for a hand-made state whose words exceed
    /// 32 bits, where it matches what Torch's unsigned long arithmetic would give).
    pub fn random(&mut self) -> u64 {
        self.left -= 1;
        // `next` past the end can only come from a hand-made state (Torch would read past its
        // array there); regenerating instead keeps this safe.
        if self.left <= 0 || self.next >= STATE_N as u64 {
            self.next_state();
        }
        let mut y = self.state[self.next as usize];
        self.next += 1;
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c_5680;
        y ^= (y << 15) & 0xefc6_0000;
        y ^= y >> 18;
        y
    }

    /// Uniform on [0, 1) with 32-bit resolution.
    pub fn uniform01(&mut self) -> f64 {
        unit(self.random())
    }

    pub fn uniform(&mut self, a: f64, b: f64) -> f64 {
        self.uniform01() * (b - a) + a
    }

    /// Box-Muller: the first call of a pair draws two uniforms and returns the cosine branch; the
    /// second returns the sine branch of the same pair without drawing. The caller checks
    /// `stdv > 0`.
    pub fn normal(&mut self, mean: f64, stdv: f64) -> f64 {
        if self.normal_is_valid == 0 {
            self.normal_x = self.uniform01();
            self.normal_y = self.uniform01();
            self.normal_rho = (-2.0 * (1.0 - self.normal_y).ln()).sqrt();
            self.normal_is_valid = 1;
            self.normal_rho * (2.0 * PI * self.normal_x).cos() * stdv + mean
        } else {
            self.normal_is_valid = 0;
            self.normal_rho * (2.0 * PI * self.normal_x).sin() * stdv + mean
        }
    }

    pub fn exponential(&mut self, lambda: f64) -> f64 {
        -1.0 / lambda * (1.0 - self.uniform01()).ln()
    }

    pub fn cauchy(&mut self, median: f64, sigma: f64) -> f64 {
        median + sigma * (PI * (self.uniform01() - 0.5)).tan()
    }

    /// exp of a normal draw with the given mean and standard deviation (Torch's definition since
    /// late 2016, the same as numpy's). The caller checks `stdv > 0`.
    pub fn log_normal(&mut self, mean: f64, stdv: f64) -> f64 {
        self.normal(mean, stdv).exp()
    }

    /// Number of trials up to the first success; the caller checks `0 < p < 1`.
    pub fn geometric(&mut self, p: f64) -> i32 {
        // C's (int) cast truncates; the ratio is never negative, so this is a floor.
        ((1.0 - self.uniform01()).ln() / p.ln()) as i32 + 1
    }

    /// The caller checks `0 <= p <= 1`.
    pub fn bernoulli(&mut self, p: f64) -> bool {
        self.uniform01() <= p
    }

    /// Torch's validity test for a state about to be installed.
    pub fn is_valid(&self) -> bool {
        self.seeded == 1 && self.left > 0 && self.left as usize <= STATE_N && self.next <= STATE_N as u64
    }

    /// The raw state, laid out as Torch's struct (padding zeroed).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut b = vec![0u8; STATE_BYTES];
        b[OFF_INITIAL_SEED..OFF_INITIAL_SEED + 8].copy_from_slice(&self.initial_seed.to_le_bytes());
        b[OFF_LEFT..OFF_LEFT + 4].copy_from_slice(&self.left.to_le_bytes());
        b[OFF_SEEDED..OFF_SEEDED + 4].copy_from_slice(&self.seeded.to_le_bytes());
        b[OFF_NEXT..OFF_NEXT + 8].copy_from_slice(&self.next.to_le_bytes());
        for (i, w) in self.state.iter().enumerate() {
            let o = OFF_STATE + 8 * i;
            b[o..o + 8].copy_from_slice(&w.to_le_bytes());
        }
        b[OFF_NORMAL_X..OFF_NORMAL_X + 8].copy_from_slice(&self.normal_x.to_le_bytes());
        b[OFF_NORMAL_Y..OFF_NORMAL_Y + 8].copy_from_slice(&self.normal_y.to_le_bytes());
        b[OFF_NORMAL_RHO..OFF_NORMAL_RHO + 8].copy_from_slice(&self.normal_rho.to_le_bytes());
        b[OFF_NORMAL_VALID..OFF_NORMAL_VALID + 4].copy_from_slice(&self.normal_is_valid.to_le_bytes());
        b
    }

    /// Reads a state written by `to_bytes` (or by Torch on x86_64); errors as Torch words them.
    pub fn from_bytes(b: &[u8]) -> Result<Generator> {
        if b.len() != STATE_BYTES {
            return Err(Error::shape("RNG state is wrong size"));
        }
        let u64_at = |o: usize| u64::from_le_bytes(b[o..o + 8].try_into().expect("8 bytes"));
        let i32_at = |o: usize| i32::from_le_bytes(b[o..o + 4].try_into().expect("4 bytes"));
        let mut g = Generator::blank();
        g.initial_seed = u64_at(OFF_INITIAL_SEED);
        g.left = i32_at(OFF_LEFT);
        g.seeded = i32_at(OFF_SEEDED);
        g.next = u64_at(OFF_NEXT);
        for (i, w) in g.state.iter_mut().enumerate() {
            *w = u64_at(OFF_STATE + 8 * i);
        }
        g.normal_x = f64::from_bits(u64_at(OFF_NORMAL_X));
        g.normal_y = f64::from_bits(u64_at(OFF_NORMAL_Y));
        g.normal_rho = f64::from_bits(u64_at(OFF_NORMAL_RHO));
        g.normal_is_valid = i32_at(OFF_NORMAL_VALID);
        if !g.is_valid() {
            return Err(Error::corrupt("Invalid RNG state"));
        }
        Ok(g)
    }

    /// `randperm(n)` before the +1: 0..n-1, then element i swapped with element i + r % (n - i)
    /// for i up to n-2.
    pub fn randperm(&mut self, n: usize) -> Vec<i64> {
        let mut p: Vec<i64> = (0..n as i64).collect();
        for i in 0..n.saturating_sub(1) {
            let z = (self.random() % (n - i) as u64) as usize;
            p.swap(i, i + z);
        }
        p
    }

    /// Draws `out.len()` category indices (0-based) from the weights `probs` (one row), Torch's
    /// way: a normalised cumulative sum, one uniform per draw, a binary search for the first
    /// bucket whose cumulative mass reaches the draw; without replacement the drawn bucket's mass
    /// is removed and the rest renormalised before the next draw.
    pub fn multinomial_row(&mut self, probs: &[f64], replacement: bool, out: &mut [i64]) -> Result<()> {
        let k = probs.len();
        if !replacement && out.len() > k {
            return Err(Error::argument(
                "cannot sample n_sample > prob_dist:size(1) samples without replacement",
            ));
        }
        let mut cum = Vec::with_capacity(k);
        let mut sum = 0.0f64;
        for &p in probs {
            if p < 0.0 || p.is_nan() {
                return Err(Error::argument(
                    "invalid multinomial distribution (encountering probability entry < 0)",
                ));
            }
            sum += p;
            cum.push(sum);
        }
        // Also what an empty row gives, so `k >= 1` below.
        if sum.is_nan() || sum <= 0.0 {
            return Err(Error::argument(
                "invalid multinomial distribution (sum of probabilities <= 0)",
            ));
        }
        for c in cum.iter_mut() {
            *c /= sum;
        }
        if replacement && sum.is_finite() {
            // Rounding must not leave the last bucket short of 1.
            cum[k - 1] = 1.0;
            if k >= SORTED_MIN_CATEGORIES && out.len() >= SORTED_MIN_DRAWS {
                self.draw_sorted(&cum, out);
                return Ok(());
            }
            let guide = Guide::new(&cum);
            for slot in out.iter_mut() {
                *slot = guide.find(&cum, self.uniform(0.0, 1.0)) as i64;
            }
            return Ok(());
        }
        for slot in out.iter_mut() {
            let u = self.uniform(0.0, 1.0);
            // Rounding must not leave the last bucket short of 1.
            cum[k - 1] = 1.0;
            // A draw can only miss every bucket through NaN weights; clamp to stay in range.
            let idx = first_reaching(&cum, u, 0, k).min(k - 1);
            *slot = idx as i64;
            if !replacement {
                let below = if idx > 0 { cum[idx - 1] } else { 0.0 };
                let mass = cum[idx] - below;
                let rest = 1.0 - mass;
                for (j, c) in cum.iter_mut().enumerate() {
                    if j >= idx {
                        *c -= mass;
                    }
                    *c /= rest;
                }
            }
        }
        Ok(())
    }
}

/// The uniform on [0, 1) that the 32-bit word `r` gives (`uniform01`, and `uniform(0, 1)`: its
/// scaling by 1 and shift by 0 are exact).
#[inline(always)]
fn unit(r: u64) -> f64 {
    r as f64 * (1.0 / 4_294_967_296.0)
}

/// Distributions at least this large (their cumulative sums, 8 bytes a category, well past the
/// caches) are drawn from in sorted order when there are at least `SORTED_MIN_DRAWS` draws.
const SORTED_MIN_CATEGORIES: usize = 1 << 17;
const SORTED_MIN_DRAWS: usize = 1 << 12;

/// Sorts `keys` by their high 32 bits (LSD radix, 11 bits a pass): the order of keys with equal
/// high words is left as it comes.
fn sort_by_high_word(keys: &mut Vec<u64>) {
    const BUCKETS: usize = 1 << 11;
    let mut spare = vec![0u64; keys.len()];
    for shift in [32u32, 43, 54] {
        let digit = |k: u64| ((k >> shift) as usize) & (BUCKETS - 1);
        let mut at = vec![0usize; BUCKETS + 1];
        for &k in keys.iter() {
            at[digit(k) + 1] += 1;
        }
        // A pass whose digits are all the same moves nothing.
        if at.contains(&keys.len()) {
            continue;
        }
        for b in 0..BUCKETS {
            at[b + 1] += at[b];
        }
        for &k in keys.iter() {
            let d = digit(k);
            spare[at[d]] = k;
            at[d] += 1;
        }
        std::mem::swap(keys, &mut spare);
    }
}

/// Walker's alias tables for the weights `probs` (expected to sum to 1), built as Torch's
/// multinomialAliasSetup builds them: `q[i]` is the chance that a draw landing on slot i keeps
/// category i, `j[i]` the category (1-based) it gives otherwise. `round` rounds a value to q's
/// element type, so that a FloatTensor's tables are computed in single precision as in Torch.
///
/// A slot that never received an alias keeps its category for sure (q = 1, j = 1, Torch's
/// values). Torch also forces q = 1 on slots whose alias is the first category (it cannot tell
/// them from slots with none), which moves their mass; here they keep their q.
pub fn alias_setup(probs: &[f64], round: impl Fn(f64) -> f64) -> Result<(Vec<i64>, Vec<f64>)> {
    let k = probs.len();
    if k == 0 {
        return Err(Error::argument("probs must have at least one element"));
    }
    if let Some(p) = probs.iter().find(|p| !p.is_finite()) {
        return Err(Error::argument(format!("invalid probability {p}")));
    }
    let kf = round(k as f64);
    let mut q = Vec::with_capacity(k);
    let mut alias: Vec<Option<usize>> = vec![None; k];
    let (mut smaller, mut larger) = (Vec::new(), Vec::new());
    for (i, &p) in probs.iter().enumerate() {
        let scaled = round(kf * p);
        q.push(scaled);
        if scaled < 1.0 {
            smaller.push(i);
        } else {
            larger.push(i);
        }
    }
    // Each small slot takes its missing mass from the last large one, which may turn small.
    while let (Some(&s), Some(&l)) = (smaller.last(), larger.last()) {
        alias[s] = Some(l);
        q[l] = round(q[l] - (1.0 - q[s]));
        if q[l] < 1.0 {
            *smaller.last_mut().expect("not empty") = l;
            larger.pop();
        } else {
            smaller.pop();
        }
    }
    let (lo, hi) = q
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &x| (a.min(x), b.max(x)));
    if lo.is_nan() || lo <= 0.0 {
        return Err(Error::argument(
            "q_min is less than 0 (every probability must be positive)",
        ));
    }
    if hi > 1.0 {
        for x in q.iter_mut() {
            *x = round(*x / hi);
        }
    }
    let j = alias
        .iter()
        .zip(q.iter_mut())
        .map(|(a, x)| match a {
            Some(l) => *l as i64 + 1,
            None => {
                *x = 1.0;
                1
            }
        })
        .collect();
    Ok((j, q))
}

impl Generator {
    /// Draws with replacement from a large distribution (`cum` as in `multinomial_row`, ending at
    /// 1), with the same uniforms and the same results as one binary search per draw, but
    /// without their scattered reads of `cum`: the draws are taken first, in order, then sorted
    /// by value, and one pass up `cum` finds each one's category (the first whose cumulative
    /// mass reaches it, which only grows with the draw).
    fn draw_sorted(&mut self, cum: &[f64], out: &mut [i64]) {
        // A draw's 32-bit word above its place in `out` (n < 2^31: Torch's n is an int).
        let mut keys: Vec<u64> = (0..out.len() as u64).map(|i| (self.random() << 32) | i).collect();
        sort_by_high_word(&mut keys);
        let mut j = 0;
        for key in keys {
            let u = unit(key >> 32);
            // cum's last value is 1 and u < 1, so j stays in range.
            while cum[j] < u {
                j += 1;
            }
            out[(key & 0xffff_ffff) as usize] = j as i64;
        }
    }

    /// Fills `out` with categories (1-based) drawn from the alias tables `j`, `q` of
    /// `alias_setup`, Torch's way: a uniform slot, then a Bernoulli draw with the slot's q that
    /// keeps the slot's category or takes its alias. Two uniforms per draw, in that order.
    pub fn alias_draw(&mut self, j: &[i64], q: &[f64], out: &mut [i64]) -> Result<()> {
        let k = j.len();
        if k == 0 || q.len() != k {
            return Err(Error::shape(format!(
                "the alias tables must have one element per category, got {} and {}",
                k,
                q.len()
            )));
        }
        if let Some(a) = j.iter().find(|&&a| a < 1 || a > k as i64) {
            return Err(Error::argument(format!("alias index {a} out of range 1..{k}")));
        }
        for o in out.iter_mut() {
            let slot = (self.uniform(0.0, k as f64) as usize).min(k - 1);
            *o = if self.bernoulli(q[slot]) {
                slot as i64 + 1
            } else {
                j[slot]
            };
        }
        Ok(())
    }
}

/// The index of the first of `cum[lo..hi]` that reaches `u` (`hi` when none does), by Torch's
/// binary search.
#[inline]
fn first_reaching(cum: &[f64], u: f64, mut lo: usize, mut hi: usize) -> usize {
    while hi > lo {
        let mid = lo + (hi - lo) / 2;
        if cum[mid] < u {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

/// A guide table over a cumulative distribution (non-decreasing, finite, ending at exactly 1):
/// for each of `2^m` equal slices of [0, 1), the first category whose cumulative mass reaches
/// the slice's start. A draw then searches only the categories between its slice's bounds, a
/// few cache lines, instead of the whole distribution; the category found is the one the binary
/// search over all of it finds (the first whose mass reaches the draw), so the draws a seed
/// gives do not change.
struct Guide {
    /// `starts[b]`: the first category reaching `b / slices`, for b in 0..=slices.
    starts: Vec<usize>,
    slices: f64,
}

impl Guide {
    /// At most one slice per category, and few enough slices to stay in cache.
    const MAX_SLICES: usize = 1 << 16;

    fn new(cum: &[f64]) -> Guide {
        // Small distributions are searched whole: one slice.
        let n = if cum.len() < 64 {
            1
        } else {
            cum.len().next_power_of_two().min(Self::MAX_SLICES)
        };
        let mut starts = Vec::with_capacity(n + 1);
        let mut j = 0;
        for b in 0..=n {
            // Exact: n is a power of two. cum's last value is 1, so j stays in range.
            let edge = b as f64 / n as f64;
            while cum[j] < edge {
                j += 1;
            }
            starts.push(j);
        }
        Guide {
            starts,
            slices: n as f64,
        }
    }

    /// The first category whose cumulative mass reaches `u`, in [0, 1).
    #[inline]
    fn find(&self, cum: &[f64], u: f64) -> usize {
        // u < 1, so the slice is below `slices`; u * slices is exact.
        let b = ((u * self.slices) as usize).min(self.starts.len() - 2);
        // The answer lies between the first categories reaching this slice's start and the next
        // slice's start (that one included).
        first_reaching(cum, u, self.starts[b], self.starts[b + 1] + 1).min(cum.len() - 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// MT19937's published reference outputs for init_genrand(5489): the first two and the
    /// 10000th.
    #[test]
    fn matches_the_mt19937_reference_stream() {
        let mut g = Generator::with_seed(5489);
        assert_eq!(g.random(), 3_499_211_612);
        assert_eq!(g.random(), 581_869_302);
        for _ in 2..9999 {
            g.random();
        }
        assert_eq!(g.random(), 4_123_659_995);
    }

    #[test]
    fn torch_documented_uniforms_for_seed_123() {
        let mut g = Generator::with_seed(123);
        let got: Vec<String> = (0..3).map(|_| format!("{:.14}", g.uniform(0.0, 1.0))).collect();
        assert_eq!(got, ["0.69646918727085", "0.71295532141812", "0.28613933874294"]);
    }

    #[test]
    fn normal_uses_the_cached_pair() {
        let mut g = Generator::with_seed(7);
        let mut h = Generator::with_seed(7);
        let (x, y) = (h.uniform01(), h.uniform01());
        let rho = (-2.0 * (1.0 - y).ln()).sqrt();
        assert_eq!(g.normal(0.0, 1.0), rho * (2.0 * PI * x).cos());
        assert_eq!(g.normal(0.0, 1.0), rho * (2.0 * PI * x).sin());
        // The pair used two draws and the sine branch none.
        assert_eq!(g.random(), h.random());
    }

    #[test]
    fn reseeding_drops_the_cached_normal() {
        let mut g = Generator::with_seed(1);
        let first = g.normal(0.0, 1.0);
        g.manual_seed(1);
        assert_eq!(g.normal(0.0, 1.0), first);
    }

    #[test]
    fn state_bytes_round_trip_and_validate() {
        let mut g = Generator::with_seed(42);
        g.normal(0.0, 1.0);
        for _ in 0..1000 {
            g.random();
        }
        let bytes = g.to_bytes();
        assert_eq!(bytes.len(), STATE_BYTES);
        let mut h = Generator::from_bytes(&bytes).unwrap();
        assert_eq!(h, g);
        assert_eq!(h.normal(0.0, 1.0), g.normal(0.0, 1.0));
        assert_eq!(h.random(), g.random());
        assert_eq!(
            Generator::from_bytes(&bytes[1..]).unwrap_err().to_string(),
            "RNG state is wrong size"
        );
        let mut bad = bytes.clone();
        bad[OFF_SEEDED] = 0;
        assert_eq!(
            Generator::from_bytes(&bad).unwrap_err().to_string(),
            "Invalid RNG state"
        );
        let mut bad = bytes;
        bad[OFF_LEFT..OFF_LEFT + 4].copy_from_slice(&1000i32.to_le_bytes());
        assert_eq!(
            Generator::from_bytes(&bad).unwrap_err().to_string(),
            "Invalid RNG state"
        );
    }

    #[test]
    fn a_hand_made_state_never_indexes_past_the_array() {
        let mut g = Generator::with_seed(3);
        g.left = 5;
        g.next = STATE_N as u64;
        let mut h = Generator::from_bytes(&g.to_bytes()).unwrap();
        h.random();
        h.random();
    }

    #[test]
    fn randperm_is_a_permutation_and_follows_the_swaps() {
        let mut g = Generator::with_seed(11);
        let mut h = g.clone();
        let p = g.randperm(10);
        let mut sorted = p.clone();
        sorted.sort();
        assert_eq!(sorted, (0..10).collect::<Vec<i64>>());
        let mut q: Vec<i64> = (0..10).collect();
        for i in 0..9 {
            let z = (h.random() % (10 - i) as u64) as usize;
            q.swap(i, i + z);
        }
        assert_eq!(p, q);
        assert_eq!(g.randperm(1), vec![0]);
        assert!(g.randperm(0).is_empty());
    }

    #[test]
    fn multinomial_without_replacement_never_repeats() {
        let mut g = Generator::with_seed(5);
        let mut out = [0i64; 4];
        g.multinomial_row(&[0.1, 0.2, 0.3, 0.4], false, &mut out).unwrap();
        let mut s = out.to_vec();
        s.sort();
        assert_eq!(s, vec![0, 1, 2, 3]);
        let mut out = [0i64; 1000];
        g.multinomial_row(&[0.0, 1.0, 0.0], true, &mut out).unwrap();
        assert!(out.iter().all(|&i| i == 1));
        assert!(g.multinomial_row(&[0.0, 0.0], true, &mut out).is_err());
        assert!(g.multinomial_row(&[1.0, -1.0, 1.0], true, &mut out).is_err());
        assert!(g.multinomial_row(&[1.0, 1.0], false, &mut [0i64; 3]).is_err());
    }

    #[test]
    fn alias_tables_by_hand() {
        // K = 4: q = 4p = {0.4, 0.8, 1.2, 1.6}. Slot 2 (0.8) takes from slot 4, which drops to
        // 1.4; slot 1 (0.4) takes from slot 4, which drops to 0.8 and turns small; then slot 4
        // takes from slot 3, which drops to 1.0.
        let (j, q) = alias_setup(&[0.1, 0.2, 0.3, 0.4], |x| x).unwrap();
        assert_eq!(j, vec![4, 4, 1, 3]);
        let want = [0.4, 0.8, 1.0, 0.8];
        for (a, b) in q.iter().zip(want) {
            assert!((a - b).abs() < 1e-12, "{q:?}");
        }
        assert!(alias_setup(&[0.5, 0.0, 0.5], |x| x).is_err());
        assert!(alias_setup(&[], |x| x).is_err());
        assert!(alias_setup(&[f64::NAN, 1.0], |x| x).is_err());
        // Draws follow the weights.
        let mut g = Generator::with_seed(1);
        let mut out = vec![0i64; 200_000];
        g.alias_draw(&j, &q, &mut out).unwrap();
        for (c, p) in [0.1, 0.2, 0.3, 0.4].iter().enumerate() {
            let f = out.iter().filter(|&&x| x == c as i64 + 1).count() as f64 / out.len() as f64;
            assert!((f - p).abs() < 0.01, "category {c}: {f}");
        }
        assert!(g.alias_draw(&[1, 5], &[1.0, 1.0], &mut out).is_err());
        assert!(g.alias_draw(&[1], &[1.0, 1.0], &mut out).is_err());
    }

    /// The running totals of `p` over its sum, the last one exactly 1 (as multinomial_row has them).
    fn normalised_cumulative(p: &[f64]) -> Vec<f64> {
        let sum: f64 = p.iter().sum();
        let mut acc = 0.0;
        let mut cum: Vec<f64> = p
            .iter()
            .map(|x| {
                acc += x;
                acc / sum
            })
            .collect();
        if let Some(last) = cum.last_mut() {
            *last = 1.0;
        }
        cum
    }

    #[test]
    fn sorted_draws_are_the_draws_of_the_searches() {
        let k = SORTED_MIN_CATEGORIES + 3;
        let mut g = Generator::with_seed(3);
        let p: Vec<f64> = (0..k).map(|i| if i % 3 == 0 { 0.0 } else { g.uniform01() }).collect();
        let n = SORTED_MIN_DRAWS * 5;
        let mut fast = vec![0i64; n];
        let mut a = Generator::with_seed(9);
        a.multinomial_row(&p, true, &mut fast).unwrap();
        // The same draws one search each (the path of small distributions).
        let cum = normalised_cumulative(&p);
        let mut b = Generator::with_seed(9);
        for (i, &f) in fast.iter().enumerate() {
            let want = first_reaching(&cum, b.uniform(0.0, 1.0), 0, k).min(k - 1);
            assert_eq!(f, want as i64, "draw {i}");
        }
        assert_eq!(a.random(), b.random(), "the streams stay together");
        let mut keys = vec![5u64 << 32 | 1, 1u64 << 32 | 7, 300u64 << 32, 1u64 << 56, 2];
        sort_by_high_word(&mut keys);
        assert_eq!(
            keys.iter().map(|k| k >> 32).collect::<Vec<_>>(),
            vec![0, 1, 5, 300, 1 << 24]
        );
    }

    #[test]
    fn the_guide_table_finds_what_the_whole_search_finds() {
        let mut g = Generator::with_seed(11);
        for k in [1usize, 3, 63, 64, 1000, 70_000] {
            // Runs of zero mass, a few heavy categories, and many light ones.
            let p: Vec<f64> = (0..k)
                .map(|i| match i % 7 {
                    0 | 1 => 0.0,
                    2 if i % 5 == 0 => 50.0,
                    _ => g.uniform01(),
                })
                .collect();
            let p = if p.iter().sum::<f64>() > 0.0 { p } else { vec![1.0; k] };
            let cum = normalised_cumulative(&p);
            let guide = Guide::new(&cum);
            let edges = (0..=4096).map(|i| i as f64 / 4096.0).filter(|&u| u < 1.0);
            for u in (0..20_000).map(|_| g.uniform01()).chain(cum.clone()).chain(edges) {
                if u >= 1.0 {
                    continue;
                }
                assert_eq!(
                    guide.find(&cum, u),
                    first_reaching(&cum, u, 0, k).min(k - 1),
                    "k {k} u {u}"
                );
            }
        }
    }
}
