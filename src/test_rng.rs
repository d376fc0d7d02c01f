//! The unit tests' random numbers: xorshift64 (shifts 13, 7, 17), seeded, so a failing
//! case is the same on every run.

pub(crate) struct XorShift(pub(crate) u64);

impl XorShift {
    /// The next state (never 0 from a seed that is not 0).
    pub(crate) fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}
