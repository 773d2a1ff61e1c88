//! Random numbers: the Lua scripts tests/lua/torch_random_*.lua assert Torch7's documented values,
//! the argument forms and the errors; `draws_match_an_independent_reference` recomputes what
//! `th` prints from a separate implementation of MT19937 and of Torch's distributions.

mod common;

use common::run_th;

fn run_script(name: &str) {
    let out = run_th(&[name]);
    out.assert_ok();
    assert!(out.stdout.contains("ok\n"), "{name} did not finish\n{}", out.stdout);
}

#[test]
fn seeds_state_and_generators() {
    run_script("torch_random_seed.lua");
}

#[test]
fn distributions_scalar_and_tensor_forms() {
    run_script("torch_random_dist.lua");
}

#[test]
fn rand_randn_randperm_multinomial() {
    run_script("torch_random_tensor.lua");
}

#[test]
fn alias_method_setup_and_draws() {
    run_script("torch_random_alias.lua");
}

/// MT19937 as published (mt19937ar's genrand_int32 with init_genrand), written without looking at
/// the crate's version: a circular index over the state instead of Torch's two-loop twist.
struct Mt {
    mt: [u32; 624],
    mti: usize,
}

impl Mt {
    fn new(seed: u32) -> Mt {
        let mut mt = [0u32; 624];
        mt[0] = seed;
        for i in 1..624 {
            mt[i] = 1_812_433_253u32
                .wrapping_mul(mt[i - 1] ^ (mt[i - 1] >> 30))
                .wrapping_add(i as u32);
        }
        Mt { mt, mti: 624 }
    }

    fn next_u32(&mut self) -> u32 {
        if self.mti >= 624 {
            for k in 0..624 {
                let y = (self.mt[k] & 0x8000_0000) | (self.mt[(k + 1) % 624] & 0x7fff_ffff);
                let mag = if y & 1 == 1 { 0x9908_b0df } else { 0 };
                self.mt[k] = self.mt[(k + 397) % 624] ^ (y >> 1) ^ mag;
            }
            self.mti = 0;
        }
        let mut y = self.mt[self.mti];
        self.mti += 1;
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c_5680;
        y ^= (y << 15) & 0xefc6_0000;
        y ^ (y >> 18)
    }
}

/// Torch's distributions over `Mt`, as the reference notes describe them.
struct Reference {
    mt: Mt,
    cached: Option<(f64, f64)>,
}

impl Reference {
    fn new(seed: u32) -> Reference {
        Reference {
            mt: Mt::new(seed),
            cached: None,
        }
    }
    fn r(&mut self) -> u64 {
        u64::from(self.mt.next_u32())
    }
    fn u(&mut self) -> f64 {
        self.r() as f64 / 4_294_967_296.0
    }
    fn uniform(&mut self, a: f64, b: f64) -> f64 {
        self.u() * (b - a) + a
    }
    fn normal(&mut self, mean: f64, sd: f64) -> f64 {
        let two_pi = 2.0 * std::f64::consts::PI;
        if let Some((x, rho)) = self.cached.take() {
            return rho * (two_pi * x).sin() * sd + mean;
        }
        let x = self.u();
        let y = self.u();
        let rho = (-2.0 * (1.0 - y).ln()).sqrt();
        self.cached = Some((x, rho));
        rho * (two_pi * x).cos() * sd + mean
    }
    fn random_between(&mut self, a: i64, b: i64) -> i64 {
        (self.r() % (b + 1 - a) as u64) as i64 + a
    }
}

/// Category draws as Torch makes them, with a linear scan where Torch bisects.
fn reference_multinomial(g: &mut Reference, w: &[f64], n: usize, replacement: bool) -> Vec<f64> {
    let sum: f64 = w.iter().sum();
    let mut acc = 0.0;
    let mut cum: Vec<f64> = w
        .iter()
        .map(|v| {
            acc += v;
            acc
        })
        .collect();
    assert_eq!(acc, sum);
    for c in cum.iter_mut() {
        *c /= sum;
    }
    let mut out = Vec::new();
    for _ in 0..n {
        let u = g.uniform(0.0, 1.0);
        let last = cum.len() - 1;
        cum[last] = 1.0;
        let k = cum.iter().position(|&c| c >= u).unwrap();
        out.push((k + 1) as f64);
        if !replacement {
            let mass = cum[k] - if k > 0 { cum[k - 1] } else { 0.0 };
            for (j, c) in cum.iter_mut().enumerate() {
                if j >= k {
                    *c -= mass;
                }
                *c /= 1.0 - mass;
            }
        }
    }
    out
}

fn expected_lines() -> Vec<f64> {
    let mut e = Vec::new();

    let mut g = Reference::new(2024);
    for _ in 0..700 {
        e.push(g.r() as f64);
    }

    let mut g = Reference::new(7);
    for _ in 0..5 {
        e.push(g.uniform(0.0, 1.0));
    }
    for _ in 0..5 {
        e.push(g.uniform(-2.0, 3.0));
    }
    for _ in 0..5 {
        e.push(g.normal(0.0, 1.0));
    }
    e.push(g.normal(10.0, 2.0));
    for _ in 0..4 {
        e.push(-1.0 / 1.5 * (1.0 - g.u()).ln());
    }
    for _ in 0..4 {
        e.push(1.0 + 2.0 * (std::f64::consts::PI * (g.u() - 0.5)).tan());
    }
    for _ in 0..4 {
        e.push(g.normal(0.5, 0.25).exp());
    }
    for _ in 0..6 {
        e.push(((1.0 - g.u()).ln() / 0.3f64.ln()).floor() + 1.0);
    }
    for _ in 0..6 {
        e.push(if g.u() <= 0.4 { 1.0 } else { 0.0 });
    }
    for _ in 0..6 {
        e.push((g.r() % 10 + 1) as f64);
    }
    for _ in 0..6 {
        e.push(g.random_between(-5, 5) as f64);
    }

    let mut g = Reference::new(99);
    for _ in 0..12 {
        e.push(g.normal(1.0, 3.0));
    }
    for _ in 0..5 {
        e.push(g.uniform(-1.0, 1.0) as f32 as f64);
    }
    for _ in 0..12 {
        e.push(g.uniform(0.0, 1.0));
    }
    for m in [256u64, 128, 32768, 1 << 31, 1 << 63, (1 << 24) + 1, (1 << 53) + 1] {
        for _ in 0..4 {
            e.push((g.r() % m) as f64);
        }
    }
    for _ in 0..6 {
        e.push(g.random_between(-3, 3) as f64);
    }
    for _ in 0..6 {
        e.push((g.r() % 100 + 1) as f64);
    }

    let mut g = Reference::new(5);
    let mut perm: Vec<f64> = (0..10).map(f64::from).collect();
    for i in 0..9 {
        let z = (g.r() % (10 - i) as u64) as usize;
        perm.swap(i, i + z);
    }
    e.extend(perm.iter().map(|v| v + 1.0));
    e.extend(reference_multinomial(&mut g, &[1.0, 2.0, 3.0, 4.0], 3, false));
    e.extend(reference_multinomial(&mut g, &[4.0, 0.0, 1.0, 1.0], 3, false));
    e.extend(reference_multinomial(&mut g, &[0.1, 0.6, 0.3], 8, true));
    e
}

#[test]
fn draws_match_an_independent_reference() {
    let out = run_th(&["torch_random_values.lua"]);
    out.assert_ok();
    let got: Vec<f64> = out.stdout.lines().map(|l| l.parse().unwrap()).collect();
    let want = expected_lines();
    assert_eq!(got.len(), want.len(), "line count");
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g, w, "line {}: th printed {g:e}, the reference gives {w:e}", i + 1);
    }
}

#[test]
fn reference_mt_matches_the_published_stream() {
    // Sanity of the reference itself: init_genrand(5489), outputs 1 and 10000 of std::mt19937.
    let mut mt = Mt::new(5489);
    assert_eq!(mt.next_u32(), 3_499_211_612);
    for _ in 1..9999 {
        mt.next_u32();
    }
    assert_eq!(mt.next_u32(), 4_123_659_995);
}

#[test]
fn each_state_starts_from_its_own_urandom_seed() {
    // Two interpreters seed themselves independently (equal seeds have probability 2^-53).
    let a = run_th(&["-e", "print(string.format('%d', torch.initialSeed()))"]);
    let b = run_th(&["-e", "print(string.format('%d', torch.initialSeed()))"]);
    a.assert_ok();
    b.assert_ok();
    assert_ne!(a.stdout, b.stdout);
}
