//! `[skins]`: the skin that skin-bound displays wear for a player whose
//! login brought no skin texture (offline mode, or an account without a
//! custom skin). The rules are [`crate::pack::profile`]'s.

use serde::Deserialize;

use crate::pack::profile::{ConfiguredSkin, TEXTURE_URL_BASE};

/// `[skins]`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SkinsSection {
    /// The skin texture for players without one: a
    /// `http://textures.minecraft.net/texture/<hash>` URL (the only host a
    /// client loads skull textures from). Empty: the default skin the
    /// client itself shows for that player's UUID. Default: empty.
    pub default_skin_url: String,
    /// Whether `default_skin_url` is a slim-armed (3 px) skin. Default:
    /// false.
    pub default_skin_slim: bool,
}

impl SkinsSection {
    /// Checks `default_skin_url`; the error names the option and says what
    /// to write instead.
    pub fn validate(&self) -> Result<(), String> {
        let url = &self.default_skin_url;
        if url.is_empty() {
            return Ok(());
        }
        let https = TEXTURE_URL_BASE.replacen("http://", "https://", 1);
        let hash = url
            .strip_prefix(TEXTURE_URL_BASE)
            .or_else(|| url.strip_prefix(https.as_str()));
        match hash {
            Some(hash) if !hash.is_empty() && hash.bytes().all(|b| b.is_ascii_hexdigit()) => Ok(()),
            _ => Err(format!(
                "skins.default_skin_url `{url}` must be {TEXTURE_URL_BASE}<hex hash>: clients \
                 load skull textures from textures.minecraft.net only (leave it empty for \
                 each player's default skin)"
            )),
        }
    }

    /// The configured skin, if one is set.
    pub fn configured(&self) -> Option<ConfiguredSkin> {
        (!self.default_skin_url.is_empty()).then(|| ConfiguredSkin {
            url: self.default_skin_url.clone(),
            slim: self.default_skin_slim,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_minecraft_texture_urls_are_taken() {
        let section = |url: &str| SkinsSection {
            default_skin_url: url.to_owned(),
            default_skin_slim: true,
        };
        assert_eq!(SkinsSection::default().validate(), Ok(()));
        assert_eq!(SkinsSection::default().configured(), None);
        let good = "http://textures.minecraft.net/texture/31f477eb1a7beee631c2ca64d06f8f68";
        assert_eq!(section(good).validate(), Ok(()));
        assert_eq!(
            section(good).configured(),
            Some(ConfiguredSkin {
                url: good.to_owned(),
                slim: true
            })
        );
        assert_eq!(
            section("https://textures.minecraft.net/texture/ab12").validate(),
            Ok(())
        );
        for bad in [
            "http://example.com/skin.png",
            "http://textures.minecraft.net/texture/",
            "http://textures.minecraft.net/texture/zz",
        ] {
            let error = section(bad).validate().expect_err(bad);
            assert!(error.contains("skins.default_skin_url"), "{error}");
        }
    }
}
