//! What a proxy forwards about a player, read and checked. Pure: bytes and
//! strings in, a [`ForwardedPlayer`] or a [`Refusal`] out.
//!
//! # BungeeCord (and Velocity's `legacy` mode)
//!
//! With `ip_forward: true` the proxy rewrites the handshake's server
//! address to `host \0 ip \0 uuid \0 properties`, where `uuid` is the
//! player's UUID without dashes and `properties` (left out when the profile
//! has none, as in an offline-mode proxy) is the game profile's properties
//! as JSON: `[{"name":"textures","value":"...","signature":"..."}]`. An
//! address split into anything but 3 or 4 parts is a connection that did
//! not come through a forwarding proxy, and is refused with the sentence
//! the Spigot family gives; so is a forwarded field that does not parse.
//! Nothing authenticates these fields: the backend's port must be reachable
//! from the proxy alone (the server warns when it listens beyond loopback).
//!
//! # Velocity modern forwarding
//!
//! The server sends a login plugin request on `velocity:player_info` whose
//! payload is one byte, the highest forwarding version it understands.
//! emoted asks for [`VELOCITY_REQUESTED_VERSION`] (1, `MODERN_DEFAULT`).
//! The proxy answers with `signature[32] | VarInt version | String address |
//! UUID | String name | properties`, the signature being HMAC-SHA256 of the
//! rest under the shared forwarding secret. Versions 1 to
//! [`VELOCITY_MAX_VERSION`] start with that same layout (2 and 3 append a
//! chat-signing key 1.20.1 clients never need, 4 only changes how the proxy
//! handles sessions), so emoted reads those and ignores what follows; any
//! other version is refused. A client that answers "not understood" (a
//! vanilla client connecting directly) or not at all is refused with
//! Velocity's own sentence; a bad signature with Paper's.

use std::net::IpAddr;

use hmac::{Hmac, Mac};
use serde::Deserialize;
use sha2::Sha256;
use uuid::Uuid;
use valence::protocol::{Decode, Property, VarInt};

/// The sentence Spigot and Paper give a client that reaches a BungeeCord
/// backend without forwarding data.
pub const BUNGEE_REFUSAL: &str =
    "If you wish to use IP forwarding, please enable it in your BungeeCord config as well!";
/// Velocity's sentence for a client that did not come through it.
pub const VELOCITY_REQUIRED: &str = "This server requires you to connect with Velocity.";
/// Paper's sentence for forwarding data whose signature does not verify.
pub const VELOCITY_UNVERIFIED: &str = "Unable to verify player details.";

/// The forwarding version emoted asks Velocity for (`MODERN_DEFAULT`).
pub const VELOCITY_REQUESTED_VERSION: u8 = 1;
/// The highest forwarding version emoted reads (`MODERN_LAZY_SESSION`).
pub const VELOCITY_MAX_VERSION: i32 = 4;
/// The login plugin channel of Velocity's player info.
pub const VELOCITY_CHANNEL: &str = "velocity:player_info";

/// The most properties a forwarded profile may carry (a real one has one:
/// `textures`).
const MAX_PROPERTIES: usize = 16;

/// A player as the proxy vouches for them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ForwardedPlayer {
    /// The player's own address (not the proxy's).
    pub ip: IpAddr,
    /// The profile's UUID.
    pub uuid: Uuid,
    /// The profile's properties (`textures`: skin and cape), signed when the
    /// proxy runs in online mode.
    pub properties: Vec<Property>,
}

/// Why a login through a proxy mode is refused. [`Refusal::client_message`]
/// is what the client is shown; the `Display` text is the log line's detail.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// BungeeCord mode, and the handshake carries no forwarding fields.
    #[error("no BungeeCord forwarding data in the handshake (a direct connection, or ip_forward is off on the proxy)")]
    BungeeMissing,
    /// BungeeCord mode, and a forwarded field does not parse.
    #[error("malformed BungeeCord forwarding data: {0}")]
    BungeeMalformed(String),
    /// Velocity mode, and the client answered the player-info request with
    /// "not understood", or did not answer in time.
    #[error("no Velocity forwarding answer ({0})")]
    VelocityMissing(String),
    /// Velocity mode, and the answer's signature does not verify with the
    /// configured secret.
    #[error("the Velocity forwarding signature does not verify (is velocity_secret the proxy's forwarding secret?)")]
    VelocityBadSignature,
    /// Velocity mode, and the proxy forwarded a version emoted does not read.
    #[error(
        "unsupported Velocity forwarding version {0} (emoted reads 1 to {VELOCITY_MAX_VERSION})"
    )]
    VelocityVersion(i32),
    /// Velocity mode, a signed answer that does not decode or names someone
    /// else.
    #[error("malformed Velocity forwarding data: {0}")]
    VelocityMalformed(String),
}

impl Refusal {
    /// The text of the login disconnect the client is sent.
    pub fn client_message(&self) -> String {
        match self {
            Refusal::BungeeMissing | Refusal::BungeeMalformed(_) => BUNGEE_REFUSAL.to_owned(),
            Refusal::VelocityMissing(_) => VELOCITY_REQUIRED.to_owned(),
            Refusal::VelocityBadSignature | Refusal::VelocityMalformed(_) => {
                VELOCITY_UNVERIFIED.to_owned()
            }
            Refusal::VelocityVersion(version) => format!(
                "Unsupported forwarding version {version}, wanted up to {VELOCITY_MAX_VERSION}."
            ),
        }
    }
}

/// One property as BungeeCord writes it in JSON. Unknown fields are
/// ignored, as the Spigot family's reader does.
#[derive(Deserialize)]
struct JsonProperty {
    name: String,
    value: String,
    #[serde(default)]
    signature: Option<String>,
}

/// Reads BungeeCord's forwarding fields out of the handshake's server
/// address.
pub fn parse_bungeecord(server_address: &str) -> Result<ForwardedPlayer, Refusal> {
    let parts: Vec<&str> = server_address.split('\0').collect();
    if parts.len() != 3 && parts.len() != 4 {
        return if parts.len() == 1 {
            Err(Refusal::BungeeMissing)
        } else {
            Err(Refusal::BungeeMalformed(format!(
                "the address has {} NUL-separated parts, not 3 or 4",
                parts.len()
            )))
        };
    }
    let ip = parts[1]
        .parse::<IpAddr>()
        .map_err(|_| Refusal::BungeeMalformed(format!("`{}` is not an IP address", parts[1])))?;
    let uuid = parse_uuid(parts[2])
        .ok_or_else(|| Refusal::BungeeMalformed(format!("`{}` is not a UUID", parts[2])))?;
    let properties = match parts.get(3) {
        None => Vec::new(),
        Some(json) => {
            let list: Vec<JsonProperty> = serde_json::from_str(json).map_err(|e| {
                Refusal::BungeeMalformed(format!(
                    "the properties are not a JSON array of name/value/signature objects: {e}"
                ))
            })?;
            if list.len() > MAX_PROPERTIES {
                return Err(Refusal::BungeeMalformed(format!(
                    "{} properties (at most {MAX_PROPERTIES})",
                    list.len()
                )));
            }
            list.into_iter()
                .map(|p| Property {
                    name: p.name,
                    value: p.value,
                    signature: p.signature,
                })
                .collect()
        }
    };
    Ok(ForwardedPlayer {
        ip,
        uuid,
        properties,
    })
}

/// A UUID written with or without dashes (BungeeCord writes none).
fn parse_uuid(text: &str) -> Option<Uuid> {
    let simple = text.len() == 32 && text.bytes().all(|b| b.is_ascii_hexdigit());
    let hyphenated = text.len() == 36;
    if simple || hyphenated {
        Uuid::parse_str(text).ok()
    } else {
        None
    }
}

/// Checks and reads Velocity's answer to the player-info request:
/// `data` is the answer's payload (`None`: "not understood"), `username`
/// the name the client logged in with, `secret` the forwarding secret.
pub fn parse_velocity(
    data: Option<&[u8]>,
    username: &str,
    secret: &[u8],
) -> Result<ForwardedPlayer, Refusal> {
    let Some(data) = data else {
        return Err(Refusal::VelocityMissing(
            "the client answered that it does not understand the request".to_owned(),
        ));
    };
    if data.len() < 32 {
        return Err(Refusal::VelocityBadSignature);
    }
    let (signature, signed) = data.split_at(32);
    let mut mac =
        <Hmac<Sha256> as Mac>::new_from_slice(secret).map_err(|_| Refusal::VelocityBadSignature)?;
    mac.update(signed);
    if mac.verify_slice(signature).is_err() {
        return Err(Refusal::VelocityBadSignature);
    }
    let mut rest = signed;
    let malformed = |what: &str| Refusal::VelocityMalformed(what.to_owned());
    let version = VarInt::decode(&mut rest)
        .map_err(|_| malformed("no forwarding version"))?
        .0;
    if !(1..=VELOCITY_MAX_VERSION).contains(&version) {
        return Err(Refusal::VelocityVersion(version));
    }
    let address = <&str>::decode(&mut rest).map_err(|_| malformed("no player address"))?;
    let ip = address
        .parse::<IpAddr>()
        .map_err(|_| Refusal::VelocityMalformed(format!("`{address}` is not an IP address")))?;
    let uuid = Uuid::decode(&mut rest).map_err(|_| malformed("no player UUID"))?;
    let name = <&str>::decode(&mut rest).map_err(|_| malformed("no player name"))?;
    if name != username {
        return Err(Refusal::VelocityMalformed(format!(
            "the proxy forwarded `{name}` for a client that logged in as `{username}`"
        )));
    }
    let count = VarInt::decode(&mut rest)
        .map_err(|_| malformed("no property count"))?
        .0;
    if !(0..=MAX_PROPERTIES as i32).contains(&count) {
        return Err(Refusal::VelocityMalformed(format!(
            "{count} properties (at most {MAX_PROPERTIES})"
        )));
    }
    let mut properties = Vec::with_capacity(count as usize);
    for _ in 0..count {
        let property = Property::<String>::decode(&mut rest)
            .map_err(|_| malformed("a property does not decode"))?;
        properties.push(property);
    }
    Ok(ForwardedPlayer {
        ip,
        uuid,
        properties,
    })
}

#[cfg(test)]
mod tests {
    use valence::protocol::Encode;

    use super::*;

    const UUID_TEXT: &str = "069a79f444e94726a5befca90e38aaf5";

    #[test]
    fn bungee_fields_are_read() {
        let props = r#"[{"name":"textures","value":"e30=","signature":"c2ln"}]"#;
        let address = format!("mc.example.org\u{0}203.0.113.7\u{0}{UUID_TEXT}\u{0}{props}");
        let player = parse_bungeecord(&address).expect("forwarded");
        assert_eq!(player.ip, "203.0.113.7".parse::<IpAddr>().unwrap());
        assert_eq!(player.uuid.simple().to_string(), UUID_TEXT);
        assert_eq!(player.properties.len(), 1);
        assert_eq!(player.properties[0].name, "textures");
        assert_eq!(player.properties[0].signature.as_deref(), Some("c2ln"));
    }

    #[test]
    fn bungee_without_properties_is_an_offline_proxy() {
        let address = format!("host\u{0}::1\u{0}{UUID_TEXT}");
        let player = parse_bungeecord(&address).expect("forwarded");
        assert!(player.properties.is_empty());
        assert!(player.ip.is_loopback());
    }

    #[test]
    fn bungee_refusals() {
        assert_eq!(parse_bungeecord("localhost"), Err(Refusal::BungeeMissing));
        for bad in [
            "host\u{0}1.2.3.4".to_owned(),
            format!("host\u{0}not-an-ip\u{0}{UUID_TEXT}"),
            "host\u{0}1.2.3.4\u{0}not-a-uuid".to_owned(),
            "host\u{0}1.2.3.4\u{0}069a79f444e94726a5befca90e38aaf".to_owned(),
            format!("host\u{0}1.2.3.4\u{0}{UUID_TEXT}\u{0}{{\"name\":\"x\"}}"),
            format!("host\u{0}1.2.3.4\u{0}{UUID_TEXT}\u{0}[{{\"name\":\"x\"}}]"),
            format!("host\u{0}1.2.3.4\u{0}{UUID_TEXT}\u{0}[]\u{0}extra"),
        ] {
            let refusal = parse_bungeecord(&bad).expect_err(&bad);
            assert!(
                matches!(refusal, Refusal::BungeeMalformed(_)),
                "{bad}: {refusal:?}"
            );
            assert_eq!(refusal.client_message(), BUNGEE_REFUSAL);
        }
    }

    fn velocity_payload(secret: &[u8], version: i32, name: &str) -> Vec<u8> {
        let mut body = Vec::new();
        VarInt(version).encode(&mut body).unwrap();
        "198.51.100.4".encode(&mut body).unwrap();
        Uuid::parse_str(UUID_TEXT)
            .unwrap()
            .encode(&mut body)
            .unwrap();
        name.encode(&mut body).unwrap();
        VarInt(1).encode(&mut body).unwrap();
        Property {
            name: "textures".to_owned(),
            value: "e30=".to_owned(),
            signature: None,
        }
        .encode(&mut body)
        .unwrap();
        let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(secret).unwrap();
        mac.update(&body);
        let mut out = mac.finalize().into_bytes().to_vec();
        out.extend_from_slice(&body);
        out
    }

    #[test]
    fn velocity_answer_is_verified_and_read() {
        let data = velocity_payload(b"s3cret", 1, "Alex");
        let player = parse_velocity(Some(&data), "Alex", b"s3cret").expect("verified");
        assert_eq!(player.ip, "198.51.100.4".parse::<IpAddr>().unwrap());
        assert_eq!(player.uuid.simple().to_string(), UUID_TEXT);
        assert_eq!(player.properties[0].value, "e30=");
        // Later versions with the same start are read too.
        let v4 = velocity_payload(b"s3cret", 4, "Alex");
        assert!(parse_velocity(Some(&v4), "Alex", b"s3cret").is_ok());
    }

    #[test]
    fn velocity_refusals_carry_their_messages() {
        let missing = parse_velocity(None, "Alex", b"k").unwrap_err();
        assert_eq!(missing.client_message(), VELOCITY_REQUIRED);
        let data = velocity_payload(b"right", 1, "Alex");
        let wrong = parse_velocity(Some(&data), "Alex", b"wrong").unwrap_err();
        assert_eq!(wrong, Refusal::VelocityBadSignature);
        assert_eq!(wrong.client_message(), VELOCITY_UNVERIFIED);
        let short = parse_velocity(Some(&[1, 2, 3]), "Alex", b"k").unwrap_err();
        assert_eq!(short, Refusal::VelocityBadSignature);
        let future = velocity_payload(b"k", 9, "Alex");
        let refusal = parse_velocity(Some(&future), "Alex", b"k").unwrap_err();
        assert_eq!(refusal, Refusal::VelocityVersion(9));
        assert!(refusal
            .client_message()
            .contains("Unsupported forwarding version 9"));
        let other = velocity_payload(b"k", 1, "Steve");
        assert!(matches!(
            parse_velocity(Some(&other), "Alex", b"k"),
            Err(Refusal::VelocityMalformed(_))
        ));
        // A signed answer cut short never panics.
        let full = velocity_payload(b"k", 1, "Alex");
        for len in 32..full.len() {
            let mut cut = full[32..len].to_vec();
            let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(b"k").unwrap();
            mac.update(&cut);
            let mut signed = mac.finalize().into_bytes().to_vec();
            signed.append(&mut cut);
            assert!(
                parse_velocity(Some(&signed), "Alex", b"k").is_err(),
                "{len}"
            );
        }
    }
}
