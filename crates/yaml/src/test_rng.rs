//! The seeded generator the crate's unit tests draw their cases from (a 64-bit LCG: the same
//! cases on every run, no dependency).

/// Numbers from `seed`, each below 2^31.
pub(crate) fn numbers(mut seed: u64) -> impl FnMut() -> usize {
    move || {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (seed >> 33) as usize
    }
}
