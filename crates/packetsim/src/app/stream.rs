//! Byte-stream applications: a bulk backlog and a finite file. Each counts the bytes its
//! transport has taken, so that a stop can cap the stream at them (see `app/mod.rs`).

/// An unlimited backlog (bulk transfer, "FTP").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Bulk {
    /// Bytes the transport has taken.
    pub(super) taken: u64,
}

/// A file of a fixed size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct File {
    /// Size, bytes (lowered to `taken` by a stop).
    bytes: u64,
    /// Bytes the transport has taken.
    taken: u64,
}

impl File {
    /// A file of `bytes` bytes, none taken.
    pub fn new(bytes: u64) -> File {
        File { bytes, taken: 0 }
    }

    /// A stream stopped after `taken` bytes: what a bulk source becomes when it stops.
    pub(super) fn stopped(taken: u64) -> File {
        File {
            bytes: taken,
            taken,
        }
    }

    /// Size, bytes.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Bytes the transport has taken.
    pub fn taken(&self) -> u64 {
        self.taken
    }

    /// Bytes from stream offset `from` to the end.
    #[inline]
    pub fn available_from(&self, from: u64) -> u64 {
        self.bytes.saturating_sub(from)
    }

    /// The transport takes `n` more bytes.
    #[inline]
    pub(super) fn take(&mut self, n: u64) {
        debug_assert!(
            self.taken + n <= self.bytes,
            "took {n} B past the end of a {} B file at {}",
            self.bytes,
            self.taken
        );
        self.taken += n;
    }

    /// Stops the file at what was taken (or at its own end, if that comes first).
    pub(super) fn cap_at_taken(&mut self) {
        self.bytes = self.bytes.min(self.taken);
    }
}
