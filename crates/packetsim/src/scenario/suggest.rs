//! "Did you mean" hints for a misspelt key or value: an error that says "unknown key `dealy`;
//! expected one of `a`, `b`, ..., `delay`, ..." gains "; did you mean `delay`?" when exactly
//! one listed name is the nearest and close enough (Damerau-Levenshtein distance, from the
//! strsim crate, of at most 1 for names up to 4 characters and at most 2 for longer ones, and
//! less than the length of either name). Any other message is returned unchanged.

/// `message` with a suggestion appended when it rejects an unknown key or value and one of the
/// names it lists is close to the one given.
pub(super) fn with_suggestion(message: String) -> String {
    match suggestion(&message) {
        Some(name) => format!("{message}; did you mean `{name}`?"),
        None => message,
    }
}

fn suggestion(message: &str) -> Option<String> {
    let rest = message
        .strip_prefix("unknown key `")
        .or_else(|| message.strip_prefix("unknown value `"))?;
    let end = rest.find('`')?;
    let given = &rest[..end];
    let listed = &rest[end + 1..];
    let listed = &listed[listed.find("expected ")?..];
    // The names are the back-quoted words of the list, in the order the message gives them.
    let names = listed.split('`').skip(1).step_by(2);
    let limit = |n: usize| if n <= 4 { 1 } else { 2 };
    let mut best: Option<(usize, &str)> = None;
    let mut tie = false;
    for name in names {
        if name == given {
            continue;
        }
        let d = strsim::damerau_levenshtein(given, name);
        let (lg, ln) = (given.chars().count(), name.chars().count());
        if d > limit(lg.max(ln)) || d >= lg.min(ln) {
            continue;
        }
        match best {
            Some((bd, _)) if d > bd => {}
            Some((bd, _)) if d == bd => tie = true,
            _ => {
                best = Some((d, name));
                tie = false;
            }
        }
    }
    match best {
        Some((_, name)) if !tie => Some(name.to_owned()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::with_suggestion;

    #[test]
    fn a_close_name_is_suggested_and_a_far_one_is_not() {
        let m = "unknown key `dealy`; expected one of `a`, `b`, `rate`, `delay`";
        assert_eq!(
            with_suggestion(m.to_owned()),
            "unknown key `dealy`; expected one of `a`, `b`, `rate`, `delay`; \
             did you mean `delay`?"
        );
        let m = "unknown key `jitter`; expected one of `a`, `b`, `rate`, `delay`";
        assert_eq!(with_suggestion(m.to_owned()), m);
        // Short names allow one edit only, and never as many edits as the name is long.
        let m = "unknown key `x`; expected one of `a`, `b`";
        assert_eq!(with_suggestion(m.to_owned()), m);
        let m = "unknown value `rneo`; expected one of `reno`, `cubic`";
        assert_eq!(
            with_suggestion(m.to_owned()),
            "unknown value `rneo`; expected one of `reno`, `cubic`; did you mean `reno`?"
        );
        let m = "unknown value `vegas`; expected one of `reno`, `cubic`";
        assert_eq!(with_suggestion(m.to_owned()), m);
        let m = "unknown value `Reno`; expected one of `reno`, `cubic`";
        assert_eq!(
            with_suggestion(m.to_owned()),
            "unknown value `Reno`; expected one of `reno`, `cubic`; did you mean `reno`?"
        );
        // Two names equally close: no guess.
        let m = "unknown value `tcq`; expected one of `tcp`, `tcx`";
        assert_eq!(with_suggestion(m.to_owned()), m);
        // A single expected name (no "one of").
        let m = "unknown value `droptial`; expected `droptail`";
        assert_eq!(
            with_suggestion(m.to_owned()),
            "unknown value `droptial`; expected `droptail`; did you mean `droptail`?"
        );
        // Other messages are left alone.
        let m = "missing required key `a`";
        assert_eq!(with_suggestion(m.to_owned()), m);
    }
}

/// `a`, `a or b`, `a, b or c` (with `conj` = "or"): names in a message.
pub(super) fn listed(items: &[&str], conj: &str) -> String {
    match items {
        [] => String::new(),
        [one] => (*one).to_owned(),
        [rest @ .., last] => format!("{} {conj} {last}", rest.join(", ")),
    }
}
