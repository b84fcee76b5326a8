//! Emote identifiers: lowercase Minecraft resource locations, `namespace:path`,
//! and the `*` globs that match them ([`glob_matches`]).

use std::fmt;

/// A validated emote id such as `example:wave`.
///
/// The namespace uses `a-z 0-9 _ - .`; the path also allows `/`. Both parts
/// are nonempty, and the colon is required (unlike vanilla, no implicit
/// `minecraft:`), because admins share emotes across servers by id.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct EmoteId(String);

/// The ids Sequences use to steer repetitions; never a real emote.
pub const CONTINUE_ID: &str = "emote:continue";
/// Ends the current step's repetitions.
pub const BREAK_ID: &str = "emote:break";

impl EmoteId {
    /// Validates `text` as a `namespace:path` id.
    pub fn parse(text: &str) -> Result<Self, String> {
        let Some((namespace, path)) = text.split_once(':') else {
            return Err(format!(
                "`{text}` is not a namespace:path identifier (e.g. \"example:wave\")"
            ));
        };
        let ns_ok = !namespace.is_empty()
            && namespace
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"_-.".contains(&b));
        let path_ok = !path.is_empty()
            && path
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"_-./".contains(&b));
        if ns_ok && path_ok {
            Ok(Self(text.to_owned()))
        } else {
            Err(format!(
                "`{text}` is not a lowercase namespace:path identifier: use a-z, 0-9, _ - . (and / in the path)"
            ))
        }
    }

    /// The whole id, `namespace:path`.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The part before the colon.
    pub fn namespace(&self) -> &str {
        self.0.split_once(':').map_or("", |(ns, _)| ns)
    }

    /// The part after the colon.
    pub fn path(&self) -> &str {
        self.0.split_once(':').map_or("", |(_, p)| p)
    }

    /// True for `emote:continue` and `emote:break`.
    pub fn is_control(&self) -> bool {
        self.0 == CONTINUE_ID || self.0 == BREAK_ID
    }
}

impl fmt::Display for EmoteId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// True when `text` matches `pattern`, where `*` matches any run of
/// characters (also none) and every other character matches itself: the
/// glob that emote groups and idle rules match emote ids with (and
/// permission grants match nodes with). It is not a regular expression.
pub fn glob_matches(pattern: &str, text: &str) -> bool {
    let (p, t) = (pattern.as_bytes(), text.as_bytes());
    let (mut pi, mut ti) = (0, 0);
    // Where the last `*` was, and where in `text` it started matching.
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() && p[pi] == b'*' {
            star = Some((pi, ti));
            pi += 1;
        } else if pi < p.len() && p[pi] == t[ti] {
            pi += 1;
            ti += 1;
        } else if let Some((star_pi, star_ti)) = star {
            // Let the last `*` swallow one more character and retry.
            pi = star_pi + 1;
            ti = star_ti + 1;
            star = Some((star_pi, star_ti + 1));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|&b| b == b'*')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valid_ids() {
        for id in ["example:wave", "my_pack:dances/salsa.v2", "a-b:c"] {
            assert!(EmoteId::parse(id).is_ok(), "{id}");
        }
        let id = EmoteId::parse("example:dances/salsa").unwrap();
        assert_eq!(id.namespace(), "example");
        assert_eq!(id.path(), "dances/salsa");
    }

    #[test]
    fn invalid_ids() {
        for id in [
            "wave",
            "Example:wave",
            "example:Wave",
            ":wave",
            "example:",
            "ex/ample:wave",
            "a:b c",
            "a:b:c",
        ] {
            assert!(EmoteId::parse(id).is_err(), "{id}");
        }
    }
}
