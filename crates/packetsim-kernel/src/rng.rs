//! Seeded random streams. Each component draws from its own stream, derived from the run seed
//! and the component's name, so adding a component never changes another component's numbers.
//!
//! The generator is xoshiro256++ (Blackman and Vigna) seeded through SplitMix64, both from the
//! rand_xoshiro crate: its `Xoshiro256PlusPlus::seed_from_u64` fills the four state words with
//! four SplitMix64 outputs, which is how this module seeded its own copy of the generator, so
//! every stream is the one it was (pinned by `streams_are_the_pinned_xoshiro256pp_streams`).
//!
//! What stays here, and why:
//! - the conversions from 64 random bits (`uniform`, `below`, `exponential`): fixed formulas a
//!   library would replace by its own (rand's `Standard` takes the same 53 bits, but its ranges
//!   and exponential sampler are different algorithms), which would change every derived number;
//! - the normal sampler (Box-Muller, cosine branch, two uniforms a call): rand_distr's `Normal`
//!   uses the Ziggurat method, which maps the same bits to other values and takes a variable
//!   number of them, so every stream with a normal draw would change from its first draw on;
//! - [`mix_seed`]'s SplitMix64 step: it feeds input words into the state between steps, which
//!   rand_xoshiro's `SplitMix64` (state private) cannot do;
//! - [`fnv1a`] of component names and sweep assignments: the seeds of every stream derive from
//!   it, so it is part of the streams' definition (it is not used for file integrity: output
//!   manifests and experiment keys use SHA-256).
use rand_xoshiro::rand_core::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// 64-bit FNV-1a of `bytes`.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// One step of SplitMix64: advances `state` and returns a well-mixed output.
pub fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Mixes several 64-bit words into one seed (used for (base seed, point, replication)).
pub fn mix_seed(parts: &[u64]) -> u64 {
    MixPrefix(MIX_START).finish(parts)
}

/// [`mix_seed`]'s state before any word.
const MIX_START: u64 = 0x243f_6a88_85a3_08d3;

/// [`mix_seed`] in two steps, for a hash whose first words are the same every time (a run's
/// salt): `MixPrefix::new(&[a]).finish(&[b, c])` is `mix_seed(&[a, b, c])`, without mixing
/// `a` again on every call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MixPrefix(u64);

impl MixPrefix {
    /// The state after mixing `parts`.
    pub fn new(parts: &[u64]) -> MixPrefix {
        let mut s = MIX_START;
        for &p in parts {
            s ^= p;
            let out = splitmix64(&mut s);
            s ^= out;
        }
        MixPrefix(s)
    }

    /// The seed of the prefix's words followed by `parts` (at least one word: with none, 0,
    /// as [`mix_seed`] of no words).
    #[inline]
    pub fn finish(self, parts: &[u64]) -> u64 {
        let mut s = self.0;
        let mut out = 0;
        for &p in parts {
            s ^= p;
            out = splitmix64(&mut s);
            s ^= out;
        }
        out
    }
}

/// A pseudo-random stream (xoshiro256++). Two streams compare equal when they will give the
/// same numbers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rng {
    g: Xoshiro256PlusPlus,
}

impl Rng {
    /// The stream of component `name` in the run seeded with `seed`.
    pub fn for_component(seed: u64, name: &str) -> Rng {
        Rng::from_seed(Rng::component_seed(seed, name))
    }

    /// The raw seed of [`Rng::for_component`]'s stream: `Rng::from_seed` of it is that stream
    /// (for a component that builds its stream only when it needs one).
    pub fn component_seed(seed: u64, name: &str) -> u64 {
        seed ^ fnv1a(name.as_bytes()).rotate_left(17)
    }

    /// A stream from a raw 64-bit seed.
    pub fn from_seed(seed: u64) -> Rng {
        Rng {
            g: Xoshiro256PlusPlus::seed_from_u64(seed),
        }
    }

    /// The next 64 random bits.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.g.next_u64()
    }

    /// A uniform float in [0, 1) with 53 bits of precision.
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// True with probability `p` (false for p <= 0, true for p >= 1).
    pub fn bernoulli(&mut self, p: f64) -> bool {
        if p <= 0.0 {
            false
        } else if p >= 1.0 {
            true
        } else {
            self.uniform() < p
        }
    }

    /// A uniform float in [lo, hi).
    pub fn uniform_range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.uniform()
    }

    /// A uniform integer in [0, n); n must be positive.
    pub fn below(&mut self, n: u64) -> u64 {
        debug_assert!(n > 0);
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }

    /// An exponential variate with the given mean.
    pub fn exponential(&mut self, mean: f64) -> f64 {
        -mean * (1.0 - self.uniform()).ln()
    }

    /// A standard normal variate (mean 0, variance 1), by the Box-Muller transform. Each call
    /// takes exactly two uniforms and returns the cosine branch (the sine branch is dropped,
    /// so a stream's position after `n` calls does not depend on anything but `n`).
    pub fn normal(&mut self) -> f64 {
        // 1 − U is in (0, 1], so the logarithm is finite.
        let u1 = 1.0 - self.uniform();
        let u2 = self.uniform();
        (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_reproducible_and_independent_of_other_components() {
        let mut a1 = Rng::for_component(42, "links.bottleneck.ab");
        let mut a2 = Rng::for_component(42, "links.bottleneck.ab");
        let mut b = Rng::for_component(42, "links.access.ab");
        let xs: Vec<u64> = (0..4).map(|_| a1.next_u64()).collect();
        let ys: Vec<u64> = (0..4).map(|_| a2.next_u64()).collect();
        let zs: Vec<u64> = (0..4).map(|_| b.next_u64()).collect();
        assert_eq!(xs, ys);
        assert_ne!(xs, zs);
    }

    #[test]
    fn bernoulli_rate_is_close_to_p() {
        let mut r = Rng::from_seed(7);
        let hits = (0..100_000).filter(|_| r.bernoulli(0.1)).count();
        assert!((9_500..10_500).contains(&hits), "{hits}");
        assert!(!r.bernoulli(0.0));
        assert!(r.bernoulli(1.0));
    }

    // Box-Muller: mean 0 and variance 1; over 200,000 draws the standard error of the mean is
    // 0.0022 and of the variance 0.0032, so 0.01 is more than three standard errors.
    #[test]
    fn normal_has_mean_zero_and_unit_variance() {
        let mut r = Rng::from_seed(11);
        let n = 200_000;
        let xs: Vec<f64> = (0..n).map(|_| r.normal()).collect();
        let mean = xs.iter().sum::<f64>() / n as f64;
        let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / n as f64;
        assert!(mean.abs() < 0.01, "mean {mean}");
        assert!((var - 1.0).abs() < 0.01, "variance {var}");
        let within_one = xs.iter().filter(|x| x.abs() < 1.0).count() as f64 / n as f64;
        assert!(
            (within_one - 0.6827).abs() < 0.005,
            "P(|X| < 1) = {within_one}"
        );
    }

    // The streams are the ones this module's own xoshiro256++ gave before rand_xoshiro
    // (recorded from it): state = four SplitMix64 outputs of the seed, then
    // result = rotl(s0 + s3, 23) + s0 (Blackman and Vigna, xoshiro256plusplus.c).
    #[test]
    fn streams_are_the_pinned_xoshiro256pp_streams() {
        let reference = |seed: u64, n: usize| {
            let mut sm = seed;
            let mut s = [0u64; 4];
            for w in &mut s {
                *w = splitmix64(&mut sm);
            }
            (0..n)
                .map(|_| {
                    let result = s[0].wrapping_add(s[3]).rotate_left(23).wrapping_add(s[0]);
                    let t = s[1] << 17;
                    s[2] ^= s[0];
                    s[3] ^= s[1];
                    s[1] ^= s[2];
                    s[0] ^= s[3];
                    s[2] ^= t;
                    s[3] = s[3].rotate_left(45);
                    result
                })
                .collect::<Vec<u64>>()
        };
        for seed in [0, 1, 7, 42, u64::MAX, 0x9e37_79b9_7f4a_7c15] {
            let mut r = Rng::from_seed(seed);
            let got: Vec<u64> = (0..1000).map(|_| r.next_u64()).collect();
            assert_eq!(got, reference(seed, 1000), "seed {seed}");
        }
        let mut r = Rng::for_component(1, "links.bottleneck.ab");
        assert_eq!(r.next_u64(), PINNED_FIRST);
    }
    // Recorded with the hand-written generator of main at 005968f.
    const PINNED_FIRST: u64 = 3_434_670_416_267_003_345;

    #[test]
    fn mixed_seeds_differ_per_part() {
        assert_ne!(mix_seed(&[1, 0, 0]), mix_seed(&[1, 0, 1]));
        assert_ne!(mix_seed(&[1, 1, 0]), mix_seed(&[1, 0, 1]));
        assert_eq!(mix_seed(&[9, 3, 4]), mix_seed(&[9, 3, 4]));
    }

    /// `MixPrefix` gives `mix_seed` of the words together, whatever the split; the values are
    /// pinned (computed apart with the SplitMix64 steps), so that every seed of every run
    /// stays what it was.
    #[test]
    fn a_mix_prefix_finishes_as_mix_seed_of_all_the_words() {
        assert_eq!(mix_seed(&[1, 2, 3]), 7_693_028_972_612_068_673);
        assert_eq!(mix_seed(&[7]), 12_798_672_463_605_936_454);
        let words = [0xdead, 1 << 63, 5, u64::MAX];
        assert_eq!(mix_seed(&words), 11_440_489_144_818_377_204);
        for split in 0..words.len() {
            let (a, b) = words.split_at(split);
            assert_eq!(
                MixPrefix::new(a).finish(b),
                mix_seed(&words),
                "split at {split}"
            );
        }
        assert_eq!(MixPrefix::new(&[1, 2]).finish(&[]), 0);
    }
}
