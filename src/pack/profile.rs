//! Whose skin a skin-bound display wears, and whether its arms are slim.
//!
//! A vanilla client draws a `player_head` with the skin its profile's
//! `textures` property names. What the server puts there, per player:
//!
//! - **Online mode, or forwarded by a proxy**: the textures property the
//!   login brought, as it is (the client reads a skull's textures without
//!   checking the signature). Slim comes from that property's own metadata
//!   (`textures.SKIN.metadata.model == "slim"`), never from the pixels.
//! - **No SKIN texture** (offline mode, or an account without a custom
//!   skin): the default skin the 1.20.1 client itself gives that UUID
//!   ([`DefaultSkin::for_uuid`]), so the emote's body and the player's model
//!   wear the same skin. The UUID is the one the server gave the player:
//!   valence's offline UUID (`SHA-256(name)`) is not vanilla's
//!   (`MD5("OfflinePlayer:"+name)`), and what counts is what the clients were
//!   told. The skull gets a textures property pointing at that default skin
//!   on `textures.minecraft.net`, because a skull with no textures is drawn
//!   by another shader, which the pack leaves alone (the part would stay far
//!   below, unseen).
//! - **A skin set in the configuration** replaces the default for players
//!   without a SKIN texture.
//!
//! Everything here is pure: the server hands in the login's property and
//! the UUID.

use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD};
use base64::Engine;
use serde_json::{json, Value};
use uuid::Uuid;

/// Where skin texture files are, as the client accepts them for skulls.
pub const TEXTURE_URL_BASE: &str = "http://textures.minecraft.net/texture/";

/// The most a textures property may hold before it is not decoded, in bytes
/// (a real one is under 1 KiB; a proxy or a plugin could send anything).
pub const MAX_TEXTURES_VALUE_BYTES: usize = 32 * 1024;

/// One of the 1.20.1 client's default skins: its name, its arm width, and
/// the hash of its texture on `textures.minecraft.net`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DefaultSkin {
    /// The skin's name (`alex`, `steve`...).
    pub name: &'static str,
    /// Slim (3 px) arms.
    pub slim: bool,
    /// The texture's hash, the last part of its URL.
    pub texture_hash: &'static str,
}

/// The default skins in the client's own order (`DefaultPlayerSkin` since
/// 1.19.3): the nine slim ones, then the same nine wide. The hashes are the
/// textures Mojang serves for them.
pub const DEFAULT_SKINS: [DefaultSkin; 18] = {
    const fn slim(name: &'static str, texture_hash: &'static str) -> DefaultSkin {
        DefaultSkin {
            name,
            slim: true,
            texture_hash,
        }
    }
    const fn wide(name: &'static str, texture_hash: &'static str) -> DefaultSkin {
        DefaultSkin {
            name,
            slim: false,
            texture_hash,
        }
    }
    [
        slim(
            "alex",
            "46acd06e8483b176e8ea39fc12fe105eb3a2a4970f5100057e9d84d4b60bdfa7",
        ),
        slim(
            "ari",
            "6ac6ca262d67bcfb3dbc924ba8215a18195497c780058a5749de674217721892",
        ),
        slim(
            "efe",
            "fece7017b1bb13926d1158864b283b8b930271f80a90482f174cca6a17e88236",
        ),
        slim(
            "kai",
            "226c617fde5b1ba569aa08bd2cb6fd84c93337532a872b3eb7bf66bdd5b395f8",
        ),
        slim(
            "makena",
            "7cb3ba52ddd5cc82c0b050c3f920f87da36add80165846f479079663805433db",
        ),
        slim(
            "noor",
            "6c160fbd16adbc4bff2409e70180d911002aebcfa811eb6ec3d1040761aea6dd",
        ),
        slim(
            "steve",
            "d5c4ee5ce20aed9e33e866c66caa37178606234b3721084bf01d13320fb2eb3f",
        ),
        slim(
            "sunny",
            "b66bc80f002b10371e2fa23de6f230dd5e2f3affc2e15786f65bc9be4c6eb71a",
        ),
        slim(
            "zuri",
            "eee522611005acf256dbd152e992c60c0bb7978cb0f3127807700e478ad97664",
        ),
        wide(
            "alex",
            "1abc803022d8300ab7578b189294cce39622d9a404cdc00d3feacfdf45be6981",
        ),
        wide(
            "ari",
            "4c05ab9e07b3505dc3ec11370c3bdce5570ad2fb2b562e9b9dd9cf271f81aa44",
        ),
        wide(
            "efe",
            "daf3d88ccb38f11f74814e92053d92f7728ddb1a7955652a60e30cb27ae6659f",
        ),
        wide(
            "kai",
            "e5cdc3243b2153ab28a159861be643a4fc1e3c17d291cdd3e57a7f370ad676f3",
        ),
        wide(
            "makena",
            "dc0fcfaf2aa040a83dc0de4e56058d1bbb2ea40157501f3e7d15dc245e493095",
        ),
        wide(
            "noor",
            "90e75cd429ba6331cd210b9bd19399527ee3bab467b5a9f61cb8a27b177f6789",
        ),
        wide(
            "steve",
            "31f477eb1a7beee631c2ca64d06f8f68fa93a3386d04452ab27f43acdf1b60cb",
        ),
        wide(
            "sunny",
            "a3bd16079f764cd541e072e888fe43885e711f98658323db0f9a6045da91ee7a",
        ),
        wide(
            "zuri",
            "f5dddb41dcafef616e959c2817808e0be741c89ffbfed39134a13e75b811863d",
        ),
    ]
};

/// Java's `UUID.hashCode()`: the two 64-bit halves xor-ed, then the two
/// 32-bit halves of that xor-ed.
pub fn java_uuid_hash(uuid: Uuid) -> i32 {
    let bits = uuid.as_u128();
    let folded = ((bits >> 64) as u64) ^ (bits as u64);
    ((folded >> 32) as u32 ^ folded as u32) as i32
}

impl DefaultSkin {
    /// The default skin a 1.20.1 client shows for a player with this UUID
    /// and no skin texture: `DEFAULT_SKINS[floorMod(uuid.hashCode(), 18)]`.
    pub fn for_uuid(uuid: Uuid) -> DefaultSkin {
        let index = java_uuid_hash(uuid).rem_euclid(DEFAULT_SKINS.len() as i32);
        DEFAULT_SKINS[index as usize]
    }

    /// The skin's texture URL.
    pub fn url(&self) -> String {
        format!("{TEXTURE_URL_BASE}{}", self.texture_hash)
    }
}

/// The skin a player's skin-bound displays wear: the textures property to
/// put in the head's profile and the arm width.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SkinProfile {
    /// The `textures` property's value (base64 JSON).
    pub textures_value: String,
    /// Its signature, when the login brought one (skulls do not need it).
    pub signature: Option<String>,
    /// Slim (3 px) arms.
    pub slim: bool,
    /// Where the skin came from.
    pub source: SkinSource,
}

/// Where a [`SkinProfile`] came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SkinSource {
    /// The player's own textures, from the login (or the proxy).
    Login,
    /// The configuration's skin for players without one.
    Configured,
    /// The client's default skin for the player's UUID.
    Default(DefaultSkin),
}

/// A skin set in the configuration: a texture URL and its arm width.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfiguredSkin {
    /// The texture's URL (on `textures.minecraft.net`, which clients load
    /// skull textures from).
    pub url: String,
    /// Slim (3 px) arms.
    pub slim: bool,
}

/// What a textures property says about its skin, if it names one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecodedTextures {
    /// The SKIN texture's URL.
    pub skin_url: String,
    /// `metadata.model` is `slim`.
    pub slim: bool,
}

/// Decodes a textures property's value (base64 of
/// `{"textures":{"SKIN":{"url":..,"metadata":{"model":"slim"}}}}`).
/// `None` when it is too long, not base64, not JSON, or has no SKIN URL.
pub fn decode_textures(value: &str) -> Option<DecodedTextures> {
    if value.len() > MAX_TEXTURES_VALUE_BYTES {
        return None;
    }
    let trimmed = value.trim();
    let bytes = STANDARD
        .decode(trimmed)
        .or_else(|_| STANDARD_NO_PAD.decode(trimmed.trim_end_matches('=')))
        .ok()?;
    let json: Value = serde_json::from_slice(&bytes).ok()?;
    let skin = json.get("textures")?.get("SKIN")?;
    let skin_url = skin.get("url")?.as_str()?.to_owned();
    let slim = skin
        .get("metadata")
        .and_then(|m| m.get("model"))
        .and_then(Value::as_str)
        == Some("slim");
    Some(DecodedTextures { skin_url, slim })
}

/// A textures property's value for a skin at `url`.
pub fn textures_value_for(url: &str, slim: bool) -> String {
    let mut skin = json!({ "url": url });
    if slim {
        skin["metadata"] = json!({ "model": "slim" });
    }
    STANDARD.encode(json!({ "textures": { "SKIN": skin } }).to_string())
}

impl SkinProfile {
    /// The skin of a player with this UUID whose login brought `textures`
    /// (value and signature), if any; `configured` is the configuration's
    /// skin for players without one.
    pub fn resolve(
        uuid: Uuid,
        textures: Option<(&str, Option<&str>)>,
        configured: Option<&ConfiguredSkin>,
    ) -> SkinProfile {
        if let Some((value, signature)) = textures {
            if let Some(decoded) = decode_textures(value) {
                return SkinProfile {
                    textures_value: value.to_owned(),
                    signature: signature.map(str::to_owned),
                    slim: decoded.slim,
                    source: SkinSource::Login,
                };
            }
        }
        if let Some(configured) = configured {
            return SkinProfile {
                textures_value: textures_value_for(&configured.url, configured.slim),
                signature: None,
                slim: configured.slim,
                source: SkinSource::Configured,
            };
        }
        let default = DefaultSkin::for_uuid(uuid);
        SkinProfile {
            textures_value: textures_value_for(&default.url(), default.slim),
            signature: None,
            slim: default.slim,
            source: SkinSource::Default(default),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_uuid_hash_is_javas() {
        // Java: new UUID(0x0123456789abcdefL, 0xfedcba9876543210L).hashCode()
        // = (int)(h >> 32) ^ (int)h with h = msb ^ lsb = 0xffffffffffffffff: 0.
        let u = Uuid::from_u128(0x0123_4567_89ab_cdef_fedc_ba98_7654_3210);
        assert_eq!(java_uuid_hash(u), 0);
        // msb 1, lsb 0: h = 1, hash 1.
        assert_eq!(java_uuid_hash(Uuid::from_u128(1 << 64)), 1);
        // h = 0x0000000100000000: hash = 1 ^ 0 = 1.
        assert_eq!(java_uuid_hash(Uuid::from_u128(1 << 32)), 1);
        // h = 0x80000000_00000000: hash = i32::MIN, floorMod 18 is 16.
        let u = Uuid::from_u128(1 << 127);
        assert_eq!(java_uuid_hash(u), i32::MIN);
        assert_eq!(DefaultSkin::for_uuid(u), DEFAULT_SKINS[16]);
    }

    #[test]
    fn default_skins_follow_the_clients_order() {
        // hash 0 → slim alex; hash 6 → slim steve; 15 → wide steve.
        assert_eq!(DefaultSkin::for_uuid(Uuid::nil()).name, "alex");
        assert!(DefaultSkin::for_uuid(Uuid::nil()).slim);
        let steve = DefaultSkin::for_uuid(Uuid::from_u128(15));
        assert_eq!((steve.name, steve.slim), ("steve", false));
        assert!(steve
            .url()
            .ends_with("31f477eb1a7beee631c2ca64d06f8f68fa93a3386d04452ab27f43acdf1b60cb"));
        // A negative hash is taken modulo 18 the floor way: -1 → 17 (wide zuri).
        let u = Uuid::from_u128(0xffff_ffff);
        assert_eq!(java_uuid_hash(u), -1);
        assert_eq!(DefaultSkin::for_uuid(u).name, "zuri");
        assert!(DEFAULT_SKINS[..9].iter().all(|s| s.slim));
        assert!(DEFAULT_SKINS[9..].iter().all(|s| !s.slim));
        assert!(DEFAULT_SKINS.iter().all(|s| s.texture_hash.len() == 64));
    }

    #[test]
    fn slim_comes_from_the_metadata() {
        let slim = textures_value_for("http://textures.minecraft.net/texture/ab", true);
        let classic = textures_value_for("http://textures.minecraft.net/texture/ab", false);
        assert!(decode_textures(&slim).expect("decodes").slim);
        let decoded = decode_textures(&classic).expect("decodes");
        assert!(!decoded.slim);
        assert_eq!(decoded.skin_url, "http://textures.minecraft.net/texture/ab");
        // A real login's shape, with profile fields and no padding.
        let login = STANDARD_NO_PAD.encode(
            r#"{"timestamp":1,"profileId":"x","profileName":"Alex","textures":{"SKIN":{"url":"http://textures.minecraft.net/texture/cd","metadata":{"model":"slim"}},"CAPE":{"url":"u"}}}"#,
        );
        assert!(decode_textures(&login).expect("decodes").slim);
        for bad in [
            "",
            "not base64!",
            &STANDARD.encode("[1,2]"),
            &STANDARD.encode(r#"{"textures":{}}"#),
        ] {
            assert_eq!(decode_textures(bad), None, "{bad}");
        }
        assert_eq!(
            decode_textures(&"A".repeat(MAX_TEXTURES_VALUE_BYTES + 4)),
            None
        );
    }

    #[test]
    fn a_player_wears_their_own_then_the_configured_then_the_default_skin() {
        let uuid = Uuid::from_u128(15); // wide steve by default
        let own = textures_value_for("http://textures.minecraft.net/texture/own", true);
        let profile = SkinProfile::resolve(uuid, Some((&own, Some("sig"))), None);
        assert_eq!(profile.source, SkinSource::Login);
        assert_eq!(profile.textures_value, own);
        assert_eq!(profile.signature.as_deref(), Some("sig"));
        assert!(profile.slim);

        let configured = ConfiguredSkin {
            url: "http://textures.minecraft.net/texture/cfg".into(),
            slim: true,
        };
        // A textures property without a SKIN counts as none.
        let empty = STANDARD.encode(r#"{"textures":{}}"#);
        let profile = SkinProfile::resolve(uuid, Some((&empty, None)), Some(&configured));
        assert_eq!(profile.source, SkinSource::Configured);
        assert!(profile.slim);
        assert_eq!(
            decode_textures(&profile.textures_value).map(|d| d.skin_url),
            Some(configured.url.clone())
        );

        let profile = SkinProfile::resolve(uuid, None, None);
        let SkinSource::Default(default) = profile.source else {
            panic!("the default skin: {:?}", profile.source);
        };
        assert_eq!(default.name, "steve");
        assert!(!profile.slim);
        assert_eq!(
            decode_textures(&profile.textures_value).map(|d| d.skin_url),
            Some(default.url())
        );
    }
}
