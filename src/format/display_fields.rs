//! The display-entity fields a node's `entity_nbt` may set, decoded once at
//! load into typed values.
//!
//! [`snbt::entity_nbt`](super::snbt::entity_nbt) checks the compound (which
//! keys, which types, which ranges); [`DisplayFields::from_checked`] then
//! reads it into this form, and nothing after `format` sees the SNBT again.
//! A field the compound leaves out has vanilla 1.20.1's default, so
//! [`DisplayFields::default`] is a display with no `entity_nbt` at all.
//! Keys 1.20.1 displays accept but emoted does not forward
//! (`CustomNameVisible`, `Silent`, `Invulnerable`, and unknown keys, which
//! warn at load) leave no trace here.

use valence::nbt::{Compound, Value};

use super::snbt::{as_bool, as_number};

/// How a display turns to face the camera (`billboard`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Billboard {
    /// `fixed`: it keeps its own orientation.
    #[default]
    Fixed,
    /// `vertical`: turns around its vertical axis.
    Vertical,
    /// `horizontal`: turns around its horizontal axis.
    Horizontal,
    /// `center`: always faces the camera.
    Center,
}

impl Billboard {
    /// The value of the display entity's `billboard` metadata field.
    pub fn protocol_id(self) -> i8 {
        match self {
            Billboard::Fixed => 0,
            Billboard::Vertical => 1,
            Billboard::Horizontal => 2,
            Billboard::Center => 3,
        }
    }
}

/// A light level override (`brightness`), each part 0 to 15.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Brightness {
    /// Block light.
    pub block: u8,
    /// Sky light.
    pub sky: u8,
}

/// How a text display aligns its lines (`alignment`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TextAlignment {
    /// `center`.
    #[default]
    Center,
    /// `left`.
    Left,
    /// `right`.
    Right,
}

/// The fields only text displays have.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TextFields {
    /// `line_width`, in pixels.
    pub line_width: i32,
    /// `background`, an ARGB colour.
    pub background_argb: i32,
    /// `text_opacity` (-1: opaque).
    pub text_opacity: i8,
    /// `shadow`.
    pub shadow: bool,
    /// `see_through`.
    pub see_through: bool,
    /// `default_background`.
    pub default_background: bool,
    /// `alignment`.
    pub alignment: TextAlignment,
}

impl Default for TextFields {
    fn default() -> Self {
        Self {
            line_width: 200,
            background_argb: 0x4000_0000,
            text_opacity: -1,
            shadow: false,
            see_through: false,
            default_background: false,
            alignment: TextAlignment::Center,
        }
    }
}

impl TextFields {
    /// The text display's bit field (shadow, see-through, default
    /// background, alignment).
    pub fn protocol_flags(&self) -> i8 {
        let mut flags = 0;
        if self.shadow {
            flags |= 0x01;
        }
        if self.see_through {
            flags |= 0x02;
        }
        if self.default_background {
            flags |= 0x04;
        }
        match self.alignment {
            TextAlignment::Center => {}
            TextAlignment::Left => flags |= 0x08,
            TextAlignment::Right => flags |= 0x10,
        }
        flags
    }
}

/// Every display-entity field `entity_nbt` may set, typed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DisplayFields {
    /// `billboard`.
    pub billboard: Billboard,
    /// `brightness` (`None`: the world's light).
    pub brightness: Option<Brightness>,
    /// `view_range` (a multiplier of the entity view distance).
    pub view_range: f32,
    /// `shadow_radius`, in blocks.
    pub shadow_radius: f32,
    /// `shadow_strength`.
    pub shadow_strength: f32,
    /// `width` of the culling box, in blocks (0: never culled).
    pub width: f32,
    /// `height` of the culling box, in blocks.
    pub height: f32,
    /// `glow_color_override`, an RGB colour (-1: the team colour).
    pub glow_color_override: i32,
    /// `Glowing`.
    pub glowing: bool,
    /// The text display fields (vanilla's defaults on other kinds, where
    /// validation refuses them).
    pub text: TextFields,
}

impl Default for DisplayFields {
    fn default() -> Self {
        Self {
            billboard: Billboard::Fixed,
            brightness: None,
            view_range: 1.0,
            shadow_radius: 0.0,
            shadow_strength: 1.0,
            width: 0.0,
            height: 0.0,
            glow_color_override: -1,
            glowing: false,
            text: TextFields::default(),
        }
    }
}

impl DisplayFields {
    /// Reads a compound [`snbt::entity_nbt`](super::snbt::entity_nbt)
    /// accepted. Values it would have refused fall back to the defaults,
    /// so this never fails.
    pub fn from_checked(nbt: &Compound) -> Self {
        let mut out = Self::default();
        out.apply_checked(nbt);
        out
    }

    /// Sets the fields a checked compound names and keeps the others: how
    /// an nbt track's key merges into what the keys before it built
    /// ([`super::nbt_track`]). A value validation would have refused sets
    /// the field's default.
    pub fn apply_checked(&mut self, nbt: &Compound) {
        let out = self;
        for (key, value) in nbt.iter() {
            let number = as_number(value);
            let flag = as_bool(value).unwrap_or(false);
            match (key.as_str(), value) {
                ("billboard", Value::String(s)) => {
                    out.billboard = match s.as_str() {
                        "vertical" => Billboard::Vertical,
                        "horizontal" => Billboard::Horizontal,
                        "center" => Billboard::Center,
                        _ => Billboard::Fixed,
                    }
                }
                ("brightness", Value::Compound(c)) => {
                    let level = |k: &str| {
                        c.get(k)
                            .and_then(as_number)
                            .map_or(0, |v| v.clamp(0.0, 15.0) as u8)
                    };
                    out.brightness = Some(Brightness {
                        block: level("block"),
                        sky: level("sky"),
                    });
                }
                ("view_range", _) => out.view_range = number.unwrap_or(1.0) as f32,
                ("shadow_radius", _) => out.shadow_radius = number.unwrap_or(0.0) as f32,
                ("shadow_strength", _) => out.shadow_strength = number.unwrap_or(1.0) as f32,
                ("width", _) => out.width = number.unwrap_or(0.0) as f32,
                ("height", _) => out.height = number.unwrap_or(0.0) as f32,
                ("glow_color_override", _) => {
                    out.glow_color_override = number.unwrap_or(-1.0) as i32
                }
                ("Glowing", _) => out.glowing = flag,
                ("line_width", _) => out.text.line_width = number.unwrap_or(200.0) as i32,
                ("background", _) => {
                    out.text.background_argb = number.map_or(0x4000_0000, |n| n as i32)
                }
                ("text_opacity", _) => out.text.text_opacity = number.unwrap_or(-1.0) as i8,
                ("shadow", _) => out.text.shadow = flag,
                ("see_through", _) => out.text.see_through = flag,
                ("default_background", _) => out.text.default_background = flag,
                ("alignment", Value::String(s)) => {
                    out.text.alignment = match s.as_str() {
                        "left" => TextAlignment::Left,
                        "right" => TextAlignment::Right,
                        _ => TextAlignment::Center,
                    }
                }
                _ => {}
            }
        }
    }

    /// The display entity's packed `brightness` metadata value (-1: none).
    pub fn protocol_brightness(&self) -> i32 {
        self.brightness
            .map_or(-1, |b| (i32::from(b.block) << 4) | (i32::from(b.sky) << 20))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::snbt::{entity_nbt, DisplayKind};

    fn read(text: &str, kind: DisplayKind) -> DisplayFields {
        let (compound, _) = entity_nbt(text, kind).expect("valid entity_nbt");
        DisplayFields::from_checked(&compound)
    }

    #[test]
    fn no_entity_nbt_is_vanilla_defaults() {
        let fields = read("{}", DisplayKind::Text);
        assert_eq!(fields, DisplayFields::default());
        assert_eq!(fields.protocol_brightness(), -1);
        assert_eq!(fields.text.protocol_flags(), 0);
        assert_eq!(fields.text.background_argb, 0x4000_0000);
    }

    #[test]
    fn every_field_is_read_as_typed() {
        let fields = read(
            "{brightness:{block:15,sky:3},shadow_radius:0.5f,shadow_strength:0.25f,\
             billboard:\"center\",view_range:2.0f,Glowing:1b,glow_color_override:16711680,\
             width:1.5f,height:2.5f}",
            DisplayKind::Item,
        );
        assert_eq!(fields.billboard, Billboard::Center);
        assert_eq!(fields.billboard.protocol_id(), 3);
        assert_eq!(fields.brightness, Some(Brightness { block: 15, sky: 3 }));
        assert_eq!(fields.protocol_brightness(), (15 << 4) | (3 << 20));
        assert_eq!(fields.shadow_radius, 0.5);
        assert_eq!(fields.shadow_strength, 0.25);
        assert_eq!(fields.view_range, 2.0);
        assert_eq!((fields.width, fields.height), (1.5, 2.5));
        assert!(fields.glowing);
        assert_eq!(fields.glow_color_override, 0xFF_0000);
    }

    #[test]
    fn text_fields_pack_into_the_protocol_flags() {
        let fields = read(
            "{line_width:100,background:0,text_opacity:127b,shadow:1b,see_through:1b,\
             default_background:0b,alignment:\"right\"}",
            DisplayKind::Text,
        );
        assert_eq!(fields.text.line_width, 100);
        assert_eq!(fields.text.background_argb, 0);
        assert_eq!(fields.text.text_opacity, 127);
        assert_eq!(fields.text.alignment, TextAlignment::Right);
        assert_eq!(fields.text.protocol_flags(), 0x01 | 0x02 | 0x10);
        let left = read("{alignment:\"left\",shadow:0b}", DisplayKind::Text);
        assert_eq!(left.text.protocol_flags(), 0x08);
    }

    #[test]
    fn ignored_keys_leave_no_trace() {
        let fields = read("{CustomNameVisible:1b,glowing:1b}", DisplayKind::Block);
        assert_eq!(fields, DisplayFields::default());
    }
}
