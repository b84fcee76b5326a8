//! Where a pack lives: the path the HTTP server answers,
//! `/pack/<sha1>.zip`, and the URL players are offered, the public base
//! ([`ResourcePackSection::public_base`](crate::server::config::ResourcePackSection::public_base))
//! followed by that path.
//!
//! The SHA-1 is in the path because a 1.20.1 client caches a server pack by
//! the SHA-1 of its *URL* (`server-resource-packs/<sha1(url)>`): a new pack
//! under an old URL would be taken from the cache. One pack, one URL.

/// The folder every pack path starts with.
pub const PACK_PREFIX: &str = "/pack/";

/// The end of every pack path.
pub const PACK_SUFFIX: &str = ".zip";

/// The path the pack with this SHA-1 is served at: `/pack/<sha1>.zip`.
pub fn pack_path(sha1_hex: &str) -> String {
    format!("{PACK_PREFIX}{sha1_hex}{PACK_SUFFIX}")
}

/// The URL players are offered: `base` (no trailing `/`, as
/// `public_base` gives it) followed by [`pack_path`].
pub fn pack_url(base: &str, sha1_hex: &str) -> String {
    format!("{}{}", base.trim_end_matches('/'), pack_path(sha1_hex))
}

/// The SHA-1 a request path asks for, when it is a pack path: 40 hex digits
/// between [`PACK_PREFIX`] and [`PACK_SUFFIX`], in lowercase (the case the
/// server offers). Anything else is `None`.
pub fn requested_sha1(path: &str) -> Option<&str> {
    let sha = path.strip_prefix(PACK_PREFIX)?.strip_suffix(PACK_SUFFIX)?;
    let hex = sha.len() == 40
        && sha
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
    hex.then_some(sha)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHA: &str = "a9993e364706816aba3e25717850c26c9cd0d89d";

    #[test]
    fn urls_are_the_base_then_the_pack_path() {
        assert_eq!(pack_path(SHA), format!("/pack/{SHA}.zip"));
        for (base, url) in [
            (
                "http://127.0.0.1:25580",
                format!("http://127.0.0.1:25580/pack/{SHA}.zip"),
            ),
            (
                "http://127.0.0.1:25580/",
                format!("http://127.0.0.1:25580/pack/{SHA}.zip"),
            ),
            (
                "https://cdn.example.com/emoted",
                format!("https://cdn.example.com/emoted/pack/{SHA}.zip"),
            ),
        ] {
            assert_eq!(pack_url(base, SHA), url, "{base}");
        }
    }

    #[test]
    fn only_pack_paths_name_a_sha1() {
        assert_eq!(requested_sha1(&pack_path(SHA)), Some(SHA));
        for other in [
            "/",
            "/pack/",
            "/pack/.zip",
            &format!("/{SHA}.zip"),
            &format!("/pack/{SHA}"),
            &format!("/pack/{SHA}.zip/"),
            &format!("/pack/{}.zip", SHA.to_uppercase()),
            &format!("/pack/{}.zip", &SHA[1..]),
            &format!("/pack/{SHA}0.zip"),
            "/pack/zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz.zip",
            &format!("/pack/../pack/{SHA}.zip"),
        ] {
            assert_eq!(requested_sha1(other), None, "{other}");
        }
    }
}
