//! Byte-stable randomness for E4: the kit's [`SeededRng`] over ChaCha20,
//! keyed by the generator name, the seed and a domain label.

use rand_chacha::ChaCha20Rng;

use crate::kit::generate::SeededRng;

/// The generator's random source.
pub type GenRng = SeededRng<ChaCha20Rng>;

/// A stream determined by `seed` and a label (`"v1/test"`, `"scenario"`).
#[must_use]
pub fn stream(seed: u64, label: &str) -> GenRng {
    GenRng::keyed(&[
        b"sv-synth-e4\0",
        &seed.to_le_bytes(),
        b"\0",
        label.as_bytes(),
    ])
}

/// True with probability `percent`/100 (integer draws keep bytes stable).
pub fn chance(rng: &mut GenRng, percent: u64) -> bool {
    rng.below(100) < percent
}

/// An index drawn with integer weights (not all zero).
pub fn weighted(rng: &mut GenRng, weights: &[u64]) -> usize {
    let total: u64 = weights.iter().sum();
    let mut x = rng.below(total);
    for (i, w) in weights.iter().enumerate() {
        if x < *w {
            return i;
        }
        x -= w;
    }
    weights.len() - 1
}

/// One of `items`, uniformly, as an owned string.
pub fn one(rng: &mut GenRng, items: &[&str]) -> String {
    (*rng.pick(items)).to_string()
}
