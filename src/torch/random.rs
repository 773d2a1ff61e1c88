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
        self.random() as f64 * (1.0 / 4_294_967_296.0)
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
        for slot in out.iter_mut() {
            let u = self.uniform(0.0, 1.0);
            // Rounding must not leave the last bucket short of 1.
            cum[k - 1] = 1.0;
            let (mut lo, mut hi) = (0usize, k);
            while hi > lo {
                let mid = lo + (hi - lo) / 2;
                if cum[mid] < u {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            // A draw can only miss every bucket through NaN weights; clamp to stay in range.
            let idx = lo.min(k - 1);
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
}
