//! Quantities with units as they are written in scenarios: durations (`"10ms"`, `"1.5s"`),
//! rates (`"2Mbps"`, `"1Gbps"`, decimal prefixes) and byte counts (`1500`, `"64KiB"`,
//! `"4MB"`). A number without a unit is accepted only for byte counts; a duration or rate
//! without its unit is an error, because "10" could mean anything.
//!
//! `serde(with = "crate::units::dur")` and friends plug these into config structs. Parse
//! errors say what was expected, and the TOML layer adds file, line and key.

use packetsim_kernel::{Dur, Rate};

/// Longest duration a scenario may write, seconds (10^7 s, about 116 days). Far inside the
/// clock's range (2^64 ns, 584 years), so sums of a few such durations cannot overflow it.
pub const MAX_DURATION_S: f64 = 1e7;
/// Fastest rate a scenario may write, bit/s (10 Tbit/s).
pub const MAX_RATE_BPS: f64 = 1e13;
/// Largest byte count a scenario may write (2^50 bytes, 1 PiB).
pub const MAX_BYTES: f64 = (1u64 << 50) as f64;

/// Whether `x` (a count of the smallest unit: nanoseconds, bits per second) is a whole
/// number, allowing for the decimal-to-binary error of the number as written ("0.1s" is
/// 100000000.00000001 ns in binary): at most 10^-6 of a unit, or a few ulps of a large value.
fn whole(x: f64) -> bool {
    (x - x.round()).abs() <= 1e-6f64.max(x.abs() * 1e-15)
}

fn split_number(s: &str) -> Option<(f64, &str)> {
    let s = s.trim();
    let end = s
        .find(|c: char| {
            !(c.is_ascii_digit() || c == '.' || c == 'e' || c == 'E' || c == '-' || c == '+')
        })
        .unwrap_or(s.len());
    // "1e3ms" parses; a bare "e" or "ms" does not.
    let (num, unit) = s.split_at(end);
    let v: f64 = num.parse().ok()?;
    Some((v, unit.trim()))
}

/// Parses a duration such as `"10ms"`, `"1.5s"`, `"250us"`, `"40ns"`, `"2min"`.
pub fn parse_dur(s: &str) -> Result<Dur, String> {
    let expected = || {
        format!("expected a duration with a unit (ns, us, ms, s, min), e.g. \"10ms\"; got {s:?}")
    };
    let (v, unit) = split_number(s).ok_or_else(expected)?;
    if v < 0.0 {
        return Err(format!("a duration cannot be negative; got {s:?}"));
    }
    let scale = match unit {
        "ns" => 1e-9,
        "us" | "µs" => 1e-6,
        "ms" => 1e-3,
        "s" => 1.0,
        "min" => 60.0,
        _ => return Err(expected()),
    };
    let secs = v * scale;
    // Also refuses an infinite value ("1e999s"); the number parsed has no NaN form.
    if secs > MAX_DURATION_S {
        return Err(format!(
            "expected a duration of at most {MAX_DURATION_S:e} s (about 116 days); got {s:?}"
        ));
    }
    let d = Dur::from_secs_f64(secs);
    if d == Dur::ZERO && secs > 0.0 {
        return Err(format!(
            "expected 0 or at least 1 ns (the clock's resolution); got {s:?}"
        ));
    }
    // Issue 38: "1.5ns" was rounded to 2 ns without a word. The clock counts whole
    // nanoseconds, so a value between two of them is refused, not rounded.
    if !whole(secs * 1e9) {
        return Err(format!(
            "expected a whole number of nanoseconds (the clock's resolution), 0 or 1 ns to \
             {MAX_DURATION_S:e} s; got {s:?}"
        ));
    }
    Ok(d)
}

/// Parses a rate such as `"2Mbps"`, `"1Gbps"`, `"64kbps"`, `"9600bps"` (decimal prefixes).
pub fn parse_rate(s: &str) -> Result<Rate, String> {
    let expected = || {
        format!("expected a rate with a unit (bps, kbps, Mbps, Gbps), e.g. \"10Mbps\"; got {s:?}")
    };
    let (v, unit) = split_number(s).ok_or_else(expected)?;
    if v < 0.0 {
        return Err(format!("a rate cannot be negative; got {s:?}"));
    }
    let scale = rate_unit_scale(unit).ok_or_else(expected)?;
    let exact = v * scale;
    let bps = exact.round();
    if bps > MAX_RATE_BPS {
        return Err(format!(
            "expected a rate of at most 10Tbps ({MAX_RATE_BPS:e} bit/s); got {s:?}"
        ));
    }
    if bps == 0.0 && v > 0.0 {
        return Err(format!(
            "expected 0 or at least 1bps (rates are whole bits per second); got {s:?}"
        ));
    }
    // Issue 38: "0.5bps" was taken as 1 bps. Rates are whole bits per second: a value
    // between two of them is refused, not rounded.
    if !whole(exact) {
        return Err(format!(
            "expected a whole number of bits per second, 0 or 1bps to 10Tbps; got {s:?}"
        ));
    }
    Ok(Rate(bps as u64))
}

/// The scale of a rate unit: a decimal prefix (none, k/K, M/m, G/g) and one of the usual ways
/// to write bits per second (`bps`, `bit`, `bit/s`, `bits/s`, `b/s`), as `"50Mbps"`, `"50Mbit"`,
/// `"50Mbit/s"`, `"50mbps"` or `"50Mb/s"` (issue 37). A lower-case `m` can only mean mega here
/// (no one writes millibits per second). A capital `B` means bytes and is refused, not guessed.
fn rate_unit_scale(unit: &str) -> Option<f64> {
    let (scale, rest) = match unit.as_bytes().first()? {
        b'k' | b'K' => (1e3, &unit[1..]),
        b'M' | b'm' => (1e6, &unit[1..]),
        b'G' | b'g' => (1e9, &unit[1..]),
        _ => (1.0, unit),
    };
    matches!(rest, "bps" | "bit" | "bit/s" | "bits/s" | "b/s").then_some(scale)
}

/// Parses a byte count: a bare integer, or a number with B, KB/MB/GB (decimal) or
/// KiB/MiB/GiB (binary), e.g. `"1500B"`, `"64KiB"`, `"4MiB"`.
pub fn parse_bytes(s: &str) -> Result<u64, String> {
    let expected = || {
        format!("expected a byte count such as 1500, \"1500B\", \"64KiB\" or \"4MB\"; got {s:?}")
    };
    let (v, unit) = split_number(s).ok_or_else(expected)?;
    if v < 0.0 {
        return Err(format!("a byte count cannot be negative; got {s:?}"));
    }
    let scale = match unit {
        "" | "B" => 1.0,
        "KB" | "kB" => 1e3,
        "MB" => 1e6,
        "GB" => 1e9,
        "KiB" => 1024.0,
        "MiB" => 1024.0 * 1024.0,
        "GiB" => 1024.0 * 1024.0 * 1024.0,
        _ => return Err(expected()),
    };
    let b = v * scale;
    if b > MAX_BYTES {
        return Err(format!(
            "expected a byte count of at most 2^50 (1 PiB); got {s:?}"
        ));
    }
    if b.fract() != 0.0 {
        return Err(format!(
            "a byte count must be a whole number of bytes; got {s:?}"
        ));
    }
    Ok(b as u64)
}

/// Formats a duration so that [`parse_dur`] reads it back exactly.
pub fn format_dur(d: Dur) -> String {
    format!("{}ns", d.as_nanos())
}

/// Formats a rate so that [`parse_rate`] reads it back exactly.
pub fn format_rate(r: Rate) -> String {
    format!("{}bps", r.as_bps())
}

/// The SI unit of a parameter value ([`si_value`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SiUnit {
    /// A plain number (no unit written).
    Plain,
    /// A duration, in seconds.
    Seconds,
    /// A rate, in bits per second.
    BitsPerSecond,
    /// A byte count written with a unit, in bytes.
    Bytes,
}

impl SiUnit {
    /// The suffix of a sweep CSV's SI column (`PATH_s`, `PATH_bps`, `PATH_bytes`); empty for
    /// a plain number.
    pub fn suffix(self) -> &'static str {
        match self {
            SiUnit::Plain => "",
            SiUnit::Seconds => "s",
            SiUnit::BitsPerSecond => "bps",
            SiUnit::Bytes => "bytes",
        }
    }

    /// The unit as an axis label writes it (`s`, `bit/s`, `B`); empty for a plain number.
    pub fn label(self) -> &'static str {
        match self {
            SiUnit::Plain => "",
            SiUnit::Seconds => "s",
            SiUnit::BitsPerSecond => "bit/s",
            SiUnit::Bytes => "B",
        }
    }
}

/// A parameter value as a number in SI units, with its unit: a plain finite number (`"0.01"`,
/// `1500`), or a quantity as scenarios write it (`"20ms"` → 0.02 s, `"2Mbps"` → 2e6 bit/s,
/// `"64KiB"` → 65536 bytes). Surrounding spaces and double quotes are ignored (sweep values
/// keep the quotes they were given with). `None` for anything else (`"reno"`, `"1e999"`).
/// The one parser of sweep values: the sweep CSVs' SI columns, `packetsim plot`'s x axis and
/// the Python binding's parameter columns all use it.
pub fn si_value(v: &str) -> Option<(f64, SiUnit)> {
    let v = v.trim().trim_matches('"');
    if let Ok(x) = v.parse::<f64>() {
        return x.is_finite().then_some((x, SiUnit::Plain));
    }
    if let Ok(d) = parse_dur(v) {
        return Some((d.as_secs_f64(), SiUnit::Seconds));
    }
    if let Ok(r) = parse_rate(v) {
        return Some((r.as_bps() as f64, SiUnit::BitsPerSecond));
    }
    if let Ok(b) = parse_bytes(v) {
        return Some((b as f64, SiUnit::Bytes));
    }
    None
}

macro_rules! serde_unit {
    ($modname:ident, $ty:ty, $parse:path, $format:path, $what:literal) => {
        /// Serde adapter for this quantity (use with `#[serde(with = ...)]`).
        pub mod $modname {
            use super::*;
            use serde::{de, Deserializer, Serializer};

            /// Serializes as a string with a unit.
            pub fn serialize<S: Serializer>(v: &$ty, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(&$format(*v))
            }

            /// Deserializes from a string with a unit.
            pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<$ty, D::Error> {
                struct V;
                impl<'de> de::Visitor<'de> for V {
                    type Value = $ty;
                    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                        f.write_str($what)
                    }
                    fn visit_str<E: de::Error>(self, s: &str) -> Result<$ty, E> {
                        $parse(s).map_err(E::custom)
                    }
                    fn visit_i64<E: de::Error>(self, n: i64) -> Result<$ty, E> {
                        $parse(&n.to_string()).map_err(E::custom)
                    }
                    fn visit_u64<E: de::Error>(self, n: u64) -> Result<$ty, E> {
                        $parse(&n.to_string()).map_err(E::custom)
                    }
                    fn visit_f64<E: de::Error>(self, n: f64) -> Result<$ty, E> {
                        $parse(&n.to_string()).map_err(E::custom)
                    }
                }
                d.deserialize_any(V)
            }

            /// Serde adapter for an optional value of this quantity.
            pub mod opt {
                use super::*;
                use serde::Deserialize;

                /// Serializes `None` as nothing and `Some` as a string with a unit.
                pub fn serialize<S: Serializer>(v: &Option<$ty>, s: S) -> Result<S::Ok, S::Error> {
                    match v {
                        Some(v) => s.serialize_some(&$format(*v)),
                        None => s.serialize_none(),
                    }
                }

                /// Deserializes a present value; absence is handled by `#[serde(default)]`.
                pub fn deserialize<'de, D: Deserializer<'de>>(
                    d: D,
                ) -> Result<Option<$ty>, D::Error> {
                    #[derive(Deserialize)]
                    struct W(#[serde(with = "super")] $ty);
                    W::deserialize(d).map(|w| Some(w.0))
                }
            }
        }
    };
}

fn format_bytes(b: u64) -> String {
    b.to_string()
}

serde_unit!(
    dur,
    Dur,
    parse_dur,
    format_dur,
    "a duration with a unit, e.g. \"10ms\""
);
serde_unit!(
    rate,
    Rate,
    parse_rate,
    format_rate,
    "a rate with a unit, e.g. \"10Mbps\""
);
serde_unit!(
    bytes,
    u64,
    parse_bytes,
    format_bytes,
    "a byte count, e.g. 1500 or \"64KiB\""
);

#[cfg(test)]
mod tests {
    #[test]
    fn sweep_values_in_si_units() {
        use super::{si_value, SiUnit::*};
        assert_eq!(si_value("0.01"), Some((0.01, Plain)));
        assert_eq!(si_value(" 1500 "), Some((1500.0, Plain)));
        assert_eq!(si_value("\"20ms\""), Some((0.02, Seconds)));
        assert_eq!(si_value("250us"), Some((250e-6, Seconds)));
        assert_eq!(si_value("2min"), Some((120.0, Seconds)));
        assert_eq!(si_value("2Mbps"), Some((2e6, BitsPerSecond)));
        assert_eq!(si_value("64kbps"), Some((64e3, BitsPerSecond)));
        assert_eq!(si_value("\"64KiB\""), Some((65536.0, Bytes)));
        assert_eq!(si_value("1500B"), Some((1500.0, Bytes)));
        assert_eq!(si_value("4MB"), Some((4e6, Bytes)));
        assert_eq!(si_value("\"reno\""), None);
        assert_eq!(si_value("1e999"), None, "not finite");
        assert_eq!(si_value("inf"), None);
        assert_eq!(
            si_value("10"),
            Some((10.0, Plain)),
            "a bare number is plain"
        );
        assert_eq!(Seconds.suffix(), "s");
        assert_eq!(BitsPerSecond.suffix(), "bps");
        assert_eq!(Bytes.suffix(), "bytes");
        assert_eq!(BitsPerSecond.label(), "bit/s");
    }

    use super::*;

    #[test]
    fn durations_need_a_known_unit() {
        assert_eq!(parse_dur("10ms"), Ok(Dur::from_millis(10)));
        assert_eq!(parse_dur("1.5s"), Ok(Dur::from_millis(1500)));
        assert_eq!(parse_dur(" 250us "), Ok(Dur::from_micros(250)));
        assert!(parse_dur("10").is_err());
        assert!(parse_dur("10 sec").is_err());
        assert!(parse_dur("-5ms").unwrap_err().contains("negative"));
    }

    #[test]
    fn rates_use_decimal_prefixes() {
        assert_eq!(parse_rate("2Mbps"), Ok(Rate::mbps(2)));
        // Issue 37: the usual spellings of the same rates; bytes (capital B) are refused.
        for same in [
            "50Mbps",
            "50Mbit",
            "50Mbit/s",
            "50mbps",
            "50Mb/s",
            "50Mbits/s",
            "0.05Gbit/s",
        ] {
            assert_eq!(parse_rate(same), Ok(Rate::mbps(50)), "{same}");
        }
        assert_eq!(parse_rate("64kbit/s"), Ok(Rate(64_000)));
        assert_eq!(parse_rate("9600bit"), Ok(Rate(9600)));
        for bad in ["50MBps", "50MB/s", "50Mbyte", "50M", "50mbit/h", "50Tbps"] {
            assert!(parse_rate(bad).is_err(), "{bad}");
        }
        assert_eq!(parse_rate("1Gbps"), Ok(Rate(1_000_000_000)));
        assert_eq!(parse_rate("1.5Mbps"), Ok(Rate(1_500_000)));
        assert!(parse_rate("10 Mbs").is_err());
        assert!(parse_rate("10").is_err());
    }

    #[test]
    fn bytes_accept_bare_integers_and_binary_prefixes() {
        assert_eq!(parse_bytes("1500"), Ok(1500));
        assert_eq!(parse_bytes("64KiB"), Ok(65536));
        assert_eq!(parse_bytes("4MiB"), Ok(4_194_304));
        assert_eq!(parse_bytes("4MB"), Ok(4_000_000));
        assert!(parse_bytes("1.5B").is_err());
        assert!(parse_bytes("12 bytes").is_err());
    }

    // Issue 16: out-of-range values saturated (584 years, u64::MAX bit/s, u64::MAX bytes) or
    // rounded to 0; they are errors naming the bound, and the bounds themselves are accepted.
    #[test]
    fn out_of_range_quantities_are_errors_never_saturated_or_rounded_to_zero() {
        for bad in ["1e308s", "1e999s", "200000min", "10000001s"] {
            let e = parse_dur(bad).unwrap_err();
            assert!(e.contains("at most 1e7 s"), "{bad}: {e}");
        }
        assert_eq!(parse_dur("1e7s"), Ok(Dur::from_secs(10_000_000)));
        assert!(parse_dur("0.4ns").unwrap_err().contains("at least 1 ns"));
        // Issue 38: between two nanoseconds or two bits per second is refused, not rounded.
        for bad in ["0.6ns", "1.5ns", "2.0000001us"] {
            let e = parse_dur(bad).unwrap_err();
            assert!(e.contains("whole number of nanoseconds"), "{bad}: {e}");
        }
        for bad in ["0.5bps", "1.5bps", "1.0000001kbps"] {
            let e = parse_rate(bad).unwrap_err();
            assert!(
                e.contains("whole number of bits per second") && e.contains("1bps to 10Tbps"),
                "{bad}: {e}"
            );
        }
        // Decimal fractions that are whole in the smallest unit stay exact.
        assert_eq!(parse_dur("0.1s"), Ok(Dur::from_millis(100)));
        assert_eq!(parse_dur("1.5ms"), Ok(Dur::from_micros(1500)));
        assert_eq!(parse_dur("2.5us"), Ok(Dur::from_nanos(2500)));
        assert_eq!(parse_dur("1e7s"), Ok(Dur::from_secs(10_000_000)));
        assert_eq!(parse_rate("0.1Mbps"), Ok(Rate(100_000)));
        assert_eq!(parse_rate("1.5Mbps"), Ok(Rate(1_500_000)));
        assert_eq!(parse_rate("0.001kbps"), Ok(Rate(1)));
        assert_eq!(parse_dur("0s"), Ok(Dur::ZERO));
        for bad in ["1e99Gbps", "10001Gbps", "1e999bps"] {
            let e = parse_rate(bad).unwrap_err();
            assert!(e.contains("at most 10Tbps"), "{bad}: {e}");
        }
        assert_eq!(parse_rate("10000Gbps"), Ok(Rate(10_000_000_000_000)));
        assert!(parse_rate("0.4bps").unwrap_err().contains("at least 1bps"));
        assert_eq!(parse_rate("0bps"), Ok(Rate(0)));
        for bad in ["1e30GiB", "2000000GB", "1e999"] {
            let e = parse_bytes(bad).unwrap_err();
            assert!(e.contains("at most 2^50"), "{bad}: {e}");
        }
        assert_eq!(parse_bytes("1048576GiB"), Ok(1 << 50));
    }
}
