//! UDP endpoints: a constant-bit-rate source and a counting sink (written with the world).
