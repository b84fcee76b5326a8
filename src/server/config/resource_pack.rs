//! `[resource_pack]`: where the server serves its resource pack and how it
//! offers it at join (the feature is [`crate::server::resource_pack`]).
//!
//! Two addresses are involved, and they differ as soon as players come from
//! another machine: `listen` is where the HTTP server binds, `public_url` is
//! the base of the URL players are sent, so it must be an address *their*
//! machines reach (a LAN address, a host name, a reverse proxy or CDN in
//! front). Left empty, `public_url` is made from `listen` with `127.0.0.1`
//! for an unspecified address: right for a client on the same machine, the
//! out-of-the-box case, and [`ResourcePackSection::startup_warning`] says
//! so when the configuration suggests players elsewhere.
//!
//! `merge` names an admin's own pack to serve inside ours (a 1.20.1 client
//! takes one server pack only); the rule is [`crate::pack::merge`]'s.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::path::{Path, PathBuf};

use serde::Deserialize;

/// The default `listen`: loopback, the pack port. The default public URL is
/// a loopback one, which only this machine can open; listening wider would
/// expose a port that no offered URL points at.
pub const DEFAULT_LISTEN: SocketAddr =
    SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), DEFAULT_PORT);

/// The default pack port: near the game's 25565, and free on a usual host.
pub const DEFAULT_PORT: u16 = 25580;

/// The longest `public_url` accepted, in bytes; the offered URL (this plus
/// `/pack/<40 hex>.zip`) must fit the packet's 32,767-character string.
pub const MAX_PUBLIC_URL_BYTES: usize = 1024;

/// The longest `prompt` accepted, in characters: the client shows it in a
/// confirm screen, a few lines at most.
pub const MAX_PROMPT_CHARS: usize = 512;

/// The default `prompt`.
pub const DEFAULT_PROMPT: &str =
    "emoted's pack lets emotes move your own skin. Without it, emotes show heads instead.";

/// `[resource_pack]`.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ResourcePackSection {
    /// Serve the pack and offer it at join. Default: true.
    pub enabled: bool,
    /// Where the HTTP server listens; port 0 picks a free port (the log
    /// names it). Default: [`DEFAULT_LISTEN`]. Read at start-up only.
    pub listen: SocketAddr,
    /// The base URL players download from, `http://` or `https://`, without
    /// a query; the pack is at `<public_url>/pack/<sha1>.zip`. Empty: made
    /// from `listen` ([`ResourcePackSection::public_base`]). Default: empty.
    pub public_url: String,
    /// Kick a player who declines the pack (vanilla's "required" pack: the
    /// client also asks again before declining). Default: false.
    pub required: bool,
    /// Text shown in the client's prompt under the vanilla question; empty
    /// for none. At most [`MAX_PROMPT_CHARS`]. Default: [`DEFAULT_PROMPT`].
    pub prompt: String,
    /// An admin's own pack to merge into emoted's: a `.zip` file or a
    /// folder with `pack.mcmeta`, relative to the server's working
    /// directory (as `emotes.folders` are). Empty: none. Read again with
    /// every rebuild of the pack (start-up and every reload); a pack that
    /// cannot be read is logged and emoted's is served alone. Default: empty.
    pub merge: PathBuf,
}

impl Default for ResourcePackSection {
    fn default() -> Self {
        Self {
            enabled: true,
            listen: DEFAULT_LISTEN,
            public_url: String::new(),
            required: false,
            prompt: DEFAULT_PROMPT.to_owned(),
            merge: PathBuf::new(),
        }
    }
}

impl ResourcePackSection {
    /// Checks `public_url` and `prompt`; the error names the option and says
    /// what to write instead.
    pub fn validate(&self) -> Result<(), String> {
        if !self.public_url.is_empty() {
            check_public_url(&self.public_url)
                .map_err(|why| format!("resource_pack.public_url `{}` {why}", self.public_url))?;
        }
        let prompt_chars = self.prompt.chars().count();
        if prompt_chars > MAX_PROMPT_CHARS {
            return Err(format!(
                "resource_pack.prompt must be at most {MAX_PROMPT_CHARS} characters, found \
                 {prompt_chars}"
            ));
        }
        Ok(())
    }

    /// The admin's pack to merge, `None` when `merge` is empty.
    pub fn merge_path(&self) -> Option<&Path> {
        (!self.merge.as_os_str().is_empty()).then_some(self.merge.as_path())
    }

    /// The base of the offered URL, without a trailing `/`: `public_url`
    /// when set, else `http://<host>:<port of bound>` where the host is
    /// `listen`'s address, or loopback when that is unspecified (`0.0.0.0`,
    /// `::`). `bound` is the address the server actually bound (its port
    /// differs from `listen`'s when that is 0).
    pub fn public_base(&self, bound: SocketAddr) -> String {
        if !self.public_url.is_empty() {
            return self.public_url.trim_end_matches('/').to_owned();
        }
        match default_host(self.listen.ip()) {
            IpAddr::V4(ip) => format!("http://{ip}:{}", bound.port()),
            IpAddr::V6(ip) => format!("http://[{ip}]:{}", bound.port()),
        }
    }

    /// True when the offered URL names this machine itself (`localhost`, a
    /// loopback address, or an empty `public_url` with `listen` on loopback
    /// or unspecified): only a client on this machine can download it.
    pub fn public_url_is_local(&self) -> bool {
        if self.public_url.is_empty() {
            return is_local_ip(default_host(self.listen.ip()));
        }
        match self.public_url.parse::<hyper::Uri>() {
            Ok(uri) => uri.host().is_some_and(is_local_host),
            Err(_) => false,
        }
    }

    /// The start-up warning about this section, if any: the offered URL is
    /// local although players are likely elsewhere, because `listen` is
    /// beyond loopback or the server runs behind a proxy (`proxy` names the
    /// mode). `None` when the pack is off or the URL fits.
    pub fn startup_warning(&self, proxy: Option<&str>) -> Option<String> {
        if !self.enabled || !self.public_url_is_local() {
            return None;
        }
        let why = match proxy {
            Some(mode) => format!("the server runs behind a {mode} proxy"),
            None if !self.listen.ip().is_loopback() => {
                format!("resource_pack.listen is {}, beyond loopback", self.listen)
            }
            None => return None,
        };
        let url = match (self.public_url.is_empty(), self.listen.port()) {
            (false, _) => self.public_url.clone(),
            (true, 0) => "unset, so made from listen with the port picked".to_owned(),
            (true, _) => format!("unset, so {}", self.public_base(self.listen)),
        };
        let port = match self.listen.port() {
            0 => DEFAULT_PORT,
            port => port,
        };
        Some(format!(
            "resource_pack.public_url ({url}) points at this machine, but {why}: players on \
             other machines cannot download the pack and their emotes fall back to heads. Set \
             resource_pack.public_url to an address they reach, such as \
             http://play.example.com:{port}"
        ))
    }
}

/// Why `text` cannot be the base of a pack URL, if it cannot. A 1.20.1
/// client downloads only `http` and `https` URLs (anything else fails at
/// once); a query or fragment would swallow the pack path appended to it,
/// and credentials would go to every player.
pub fn check_public_url(text: &str) -> Result<(), String> {
    if text.len() > MAX_PUBLIC_URL_BYTES {
        return Err(format!("is longer than {MAX_PUBLIC_URL_BYTES} bytes"));
    }
    if text.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err("has spaces or control characters".to_owned());
    }
    if text.contains('#') || text.contains('?') {
        return Err(
            "has a query or fragment: give the base URL only, the server appends \
             /pack/<sha1>.zip"
                .to_owned(),
        );
    }
    // The scheme first: `file:///x` and `mailto:x` are no `hyper::Uri`, and
    // the admin should hear about the scheme, not the format.
    match text.split_once("://").map(|(scheme, _)| scheme) {
        Some(s) if s.eq_ignore_ascii_case("http") || s.eq_ignore_ascii_case("https") => {}
        Some(s) if !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric()) => {
            return Err(format!(
                "must start with http:// or https:// (a 1.20.1 client refuses `{s}` URLs)"
            ))
        }
        _ => return Err("must start with http:// or https://".to_owned()),
    }
    let uri: hyper::Uri = text
        .parse()
        .map_err(|e| format!("is not a URL ({e}); write it as http://host:port"))?;
    let Some(authority) = uri.authority() else {
        return Err("has no host; write it as http://host:port".to_owned());
    };
    if authority.as_str().contains('@') {
        return Err("holds credentials, which every player would receive".to_owned());
    }
    if authority.host().is_empty() {
        return Err("has no host; write it as http://host:port".to_owned());
    }
    Ok(())
}

/// The host the default public URL names for a listen address.
fn default_host(listen: IpAddr) -> IpAddr {
    match listen {
        IpAddr::V4(ip) if ip.is_unspecified() => IpAddr::V4(Ipv4Addr::LOCALHOST),
        IpAddr::V6(ip) if ip.is_unspecified() => IpAddr::V6(Ipv6Addr::LOCALHOST),
        ip => ip,
    }
}

fn is_local_ip(ip: IpAddr) -> bool {
    ip.is_loopback() || ip.is_unspecified()
}

/// `localhost`, `*.localhost`, a loopback or unspecified address (IPv6 with
/// or without its brackets).
fn is_local_host(host: &str) -> bool {
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    if host == "localhost" || host.ends_with(".localhost") {
        return true;
    }
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    bare.parse::<IpAddr>().is_ok_and(is_local_ip)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn section(listen: &str, public_url: &str) -> ResourcePackSection {
        ResourcePackSection {
            listen: listen.parse().expect("address"),
            public_url: public_url.to_owned(),
            ..ResourcePackSection::default()
        }
    }

    #[test]
    fn public_urls_must_be_plain_http_or_https() {
        for ok in [
            "http://127.0.0.1:25580",
            "https://cdn.example.com/emoted/",
            "HTTP://play.example.com:8080",
            "http://[2001:db8::1]:25580",
        ] {
            assert_eq!(check_public_url(ok), Ok(()), "{ok}");
        }
        for (bad, why) in [
            ("ftp://example.com/", "must start with http:// or https://"),
            ("file:///tmp/pack", "refuses `file`"),
            ("example.com:25580", "http://"),
            ("/pack", "must start with http:// or https://"),
            ("http://", "not a URL"),
            ("http://example.com/?v=1", "query or fragment"),
            ("http://example.com/#x", "query or fragment"),
            ("http://user:pw@example.com/", "credentials"),
            ("http://exa mple.com/", "spaces"),
        ] {
            let err = check_public_url(bad).expect_err(bad);
            assert!(err.contains(why), "{bad}: {err}");
        }
        let long = format!("http://example.com/{}", "a".repeat(MAX_PUBLIC_URL_BYTES));
        assert!(check_public_url(&long).is_err());
    }

    #[test]
    fn merge_names_the_admins_pack_or_none() {
        assert_eq!(ResourcePackSection::default().merge_path(), None);
        let config = crate::server::config::Config::parse(
            "[resource_pack]\nmerge = \"packs/ours.zip\"",
            std::path::Path::new("emoted.toml"),
        )
        .expect("valid");
        assert_eq!(
            config.resource_pack.merge_path(),
            Some(Path::new("packs/ours.zip"))
        );
    }

    #[test]
    fn validate_names_the_option() {
        let err = section("127.0.0.1:1", "gopher://x")
            .validate()
            .expect_err("bad");
        assert!(
            err.starts_with("resource_pack.public_url `gopher://x` must start"),
            "{err}"
        );
        let long = ResourcePackSection {
            prompt: "x".repeat(MAX_PROMPT_CHARS + 1),
            ..ResourcePackSection::default()
        };
        assert!(long
            .validate()
            .expect_err("long")
            .contains("resource_pack.prompt"));
        assert_eq!(ResourcePackSection::default().validate(), Ok(()));
    }

    #[test]
    fn the_default_base_follows_the_bound_port_and_loopback() {
        let bound: SocketAddr = "127.0.0.1:40001".parse().expect("address");
        let cases = [
            ("127.0.0.1:0", "", "http://127.0.0.1:40001"),
            ("0.0.0.0:25580", "", "http://127.0.0.1:40001"),
            ("[::]:25580", "", "http://[::1]:40001"),
            ("192.168.1.5:25580", "", "http://192.168.1.5:40001"),
            (
                "0.0.0.0:1",
                "https://cdn.example.com/p/",
                "https://cdn.example.com/p",
            ),
            (
                "0.0.0.0:1",
                "http://play.example.com:25580",
                "http://play.example.com:25580",
            ),
        ];
        for (listen, public_url, base) in cases {
            assert_eq!(
                section(listen, public_url).public_base(bound),
                base,
                "{listen} {public_url}"
            );
        }
    }

    #[test]
    fn local_urls_are_recognised() {
        for (listen, public_url, local) in [
            ("127.0.0.1:25580", "", true),
            ("0.0.0.0:25580", "", true),
            ("192.168.1.5:25580", "", false),
            ("0.0.0.0:25580", "http://localhost:25580", true),
            ("0.0.0.0:25580", "http://LOCALHOST.:25580", true),
            ("0.0.0.0:25580", "http://127.0.0.7:25580", true),
            ("0.0.0.0:25580", "http://[::1]:25580", true),
            ("0.0.0.0:25580", "http://play.example.com:25580", false),
            ("0.0.0.0:25580", "http://10.0.0.2/", false),
        ] {
            assert_eq!(
                section(listen, public_url).public_url_is_local(),
                local,
                "{listen} {public_url}"
            );
        }
    }

    #[test]
    fn the_warning_says_when_players_elsewhere_cannot_download() {
        assert_eq!(ResourcePackSection::default().startup_warning(None), None);
        let wide = section("0.0.0.0:25580", "")
            .startup_warning(None)
            .expect("warns");
        assert!(wide.contains("unset, so http://127.0.0.1:25580"), "{wide}");
        assert!(wide.contains("0.0.0.0:25580, beyond loopback"), "{wide}");
        assert!(wide.contains("http://play.example.com:25580"), "{wide}");
        let picked = section("0.0.0.0:0", "")
            .startup_warning(None)
            .expect("warns");
        assert!(picked.contains("with the port picked"), "{picked}");
        assert!(picked.contains("http://play.example.com:25580"), "{picked}");
        let proxied = section("127.0.0.1:25580", "http://localhost:25580")
            .startup_warning(Some("velocity"))
            .expect("warns");
        assert!(proxied.contains("behind a velocity proxy"), "{proxied}");
        assert_eq!(
            section("0.0.0.0:25580", "http://play.example.com:25580")
                .startup_warning(Some("velocity")),
            None
        );
        let off = ResourcePackSection {
            enabled: false,
            ..section("0.0.0.0:25580", "")
        };
        assert_eq!(off.startup_warning(Some("bungeecord")), None);
    }
}
