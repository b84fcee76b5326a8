//! SNBT content of display nodes: item stacks, block states and extra entity
//! data, parsed with valence's own SNBT reader and turned into what a 1.20.1
//! client is sent.
//!
//! Item stacks are accepted in both the modern form
//! (`{id:"minecraft:stick",count:1,components:{...}}`) and the 1.20.1 form
//! (`{id:"minecraft:stick",Count:1b,tag:{...}}`). Modern components are carried
//! over to the 1.20.1 `tag` where 1.20.1 has an equivalent; the rest are
//! dropped with a warning that names them.

use valence::block::BlockKind;
use valence::nbt::snbt::from_snbt_str;
use valence::nbt::{Compound, List, Value};
use valence::{BlockState, ItemKind, ItemStack};

/// Result of reading one SNBT string: the value, plus warnings about what was
/// approximated, or a message naming the rule broken.
pub type SnbtResult<T> = Result<(T, Vec<String>), String>;

/// Parses SNBT that must be a compound.
pub fn parse_compound(text: &str) -> Result<Compound, String> {
    match from_snbt_str(text) {
        Ok(Value::Compound(c)) => Ok(c),
        Ok(_) => Err("SNBT must be a compound `{...}`".to_owned()),
        Err(e) => Err(format!(
            "invalid SNBT at line {}, column {}: {}",
            e.line, e.column, e.error_type
        )),
    }
}

fn strip_minecraft(name: &str) -> Option<&str> {
    match name.split_once(':') {
        Some(("minecraft", rest)) => Some(rest),
        Some(_) => None,
        None => Some(name),
    }
}

/// A whole NBT number (byte, short, int or long).
pub(crate) fn as_int(value: &Value) -> Option<i64> {
    match value {
        Value::Byte(v) => Some(i64::from(*v)),
        Value::Short(v) => Some(i64::from(*v)),
        Value::Int(v) => Some(i64::from(*v)),
        Value::Long(v) => Some(*v),
        _ => None,
    }
}

/// Any NBT number as `f64`.
pub(crate) fn as_number(value: &Value) -> Option<f64> {
    match value {
        Value::Float(v) => Some(f64::from(*v)),
        Value::Double(v) => Some(*v),
        other => as_int(other).map(|v| v as f64),
    }
}

/// A flag: a whole number (0 is false) or the string `true` or `false`.
pub(crate) fn as_bool(value: &Value) -> Option<bool> {
    match value {
        Value::String(s) if s == "true" => Some(true),
        Value::String(s) if s == "false" => Some(false),
        other => as_int(other).map(|v| v != 0),
    }
}

/// The 1.20.1 item an item id names (`minecraft:stick` or `stick`); air
/// is refused, since it shows nothing.
pub fn item_kind(name: &str) -> Result<ItemKind, String> {
    match strip_minecraft(name).and_then(ItemKind::from_str) {
        Some(ItemKind::Air) => {
            Err("item `minecraft:air` shows nothing; use a real item".to_owned())
        }
        Some(kind) => Ok(kind),
        None => Err(format!(
            "unknown item `{name}`: not an item of Minecraft 1.20.1"
        )),
    }
}

/// Reads `item_stack_snbt` into the stack a 1.20.1 client is sent.
///
/// Refused: SNBT that does not parse, a missing or unknown `id` (1.20.1 items
/// only), `air`, a count outside 1..=127, mixing `components` with `tag`, and
/// unknown top-level keys.
pub fn item_stack(text: &str) -> SnbtResult<ItemStack> {
    item_stack_compound(&parse_compound(text)?)
}

/// [`item_stack`] for a compound already parsed (an nbt track's `item`).
pub fn item_stack_compound(compound: &Compound) -> SnbtResult<ItemStack> {
    let mut warnings = Vec::new();
    let mut kind = None;
    let mut count: i64 = 1;
    let mut tag: Option<Compound> = None;
    let mut components: Option<&Compound> = None;
    for (key, value) in compound.iter() {
        match key.as_str() {
            "id" => {
                let Value::String(name) = value else {
                    return Err("item `id` must be a string such as \"minecraft:stick\"".to_owned());
                };
                kind = Some(item_kind(name)?);
            }
            "count" | "Count" => {
                if compound.contains_key("count") && compound.contains_key("Count") {
                    return Err("write the item count once: `count` (modern) or `Count` (1.20.1)".to_owned());
                }
                count = as_int(value).ok_or_else(|| format!("item `{key}` must be a whole number"))?;
            }
            "tag" => match value {
                Value::Compound(c) => tag = Some(c.clone()),
                _ => return Err("item `tag` must be a compound".to_owned()),
            },
            "components" => match value {
                Value::Compound(c) => components = Some(c),
                _ => return Err("item `components` must be a compound".to_owned()),
            },
            other => {
                return Err(format!(
                    "unknown item stack key `{other}`; allowed: id, count (or Count), components (or tag)"
                ))
            }
        }
    }
    let Some(kind) = kind else {
        return Err("item stack needs an `id` such as \"minecraft:stick\"".to_owned());
    };
    if !(1..=127).contains(&count) {
        return Err(format!("item count must be from 1 to 127, found {count}"));
    }
    if let Some(components) = components {
        if tag.is_some() {
            return Err("use either modern `components` or the 1.20.1 `tag`, not both".to_owned());
        }
        let mut converted = Compound::new();
        for (name, value) in components.iter() {
            convert_component(name, value, &mut converted, &mut warnings)?;
        }
        if !converted.is_empty() {
            tag = Some(converted);
        }
    }
    Ok((ItemStack::new(kind, count as u8, tag), warnings))
}

fn display_compound(tag: &mut Compound) -> &mut Compound {
    let entry = tag
        .entry("display")
        .or_insert_with(|| Value::Compound(Compound::new()));
    if !matches!(entry, Value::Compound(_)) {
        *entry = Value::Compound(Compound::new());
    }
    match entry {
        Value::Compound(c) => c,
        _ => unreachable!("just replaced with a compound"),
    }
}

/// Carries one modern item component over to the 1.20.1 `tag`.
fn convert_component(
    name: &str,
    value: &Value,
    tag: &mut Compound,
    warnings: &mut Vec<String>,
) -> Result<(), String> {
    let short = name.strip_prefix("minecraft:").unwrap_or(name);
    let bad = |what: &str| format!("item component `{name}` must be {what}");
    match short {
        "enchantments" => {
            // 1.20.5–1.21.4: {levels:{id:lvl}}; 1.21.5+: {id:lvl}.
            let Value::Compound(c) = value else {
                return Err(bad("a compound of enchantment levels"));
            };
            let levels = match c.get("levels") {
                Some(Value::Compound(levels)) => levels,
                Some(_) => return Err(bad("a compound with `levels`")),
                None => c,
            };
            let mut list = Vec::new();
            for (id, lvl) in levels.iter() {
                let lvl = as_int(lvl).ok_or_else(|| bad("a compound of whole-number levels"))?;
                let mut e = Compound::new();
                e.insert("id", id.clone());
                e.insert("lvl", lvl.clamp(0, i64::from(i16::MAX)) as i16);
                list.push(e);
            }
            tag.insert("Enchantments", List::Compound(list));
        }
        "enchantment_glint_override" => match as_bool(value) {
            Some(true) => {
                if !tag.contains_key("Enchantments") {
                    // An empty enchantment entry makes a 1.20.1 client draw the glint.
                    tag.insert("Enchantments", List::Compound(vec![Compound::new()]));
                }
            }
            Some(false) => warnings.push(format!(
                "`{name}:false` cannot hide the glint on 1.20.1 clients; ignored"
            )),
            None => return Err(bad("true or false")),
        },
        "custom_model_data" => {
            let number = match value {
                Value::Compound(c) => match c.get("floats") {
                    Some(Value::List(List::Float(f))) if !f.is_empty() => {
                        warnings.push(format!(
                            "`{name}` keeps only its first float on 1.20.1 clients"
                        ));
                        f64::from(f[0])
                    }
                    _ => return Err(bad("a number or {floats:[...]}")),
                },
                other => as_number(other).ok_or_else(|| bad("a number"))?,
            };
            tag.insert("CustomModelData", number as i32);
        }
        "dyed_color" => {
            let rgb = match value {
                Value::Compound(c) => c.get("rgb").and_then(as_int),
                other => as_int(other),
            }
            .ok_or_else(|| bad("a color number or {rgb:N}"))?;
            display_compound(tag).insert("color", rgb as i32);
        }
        "custom_name" | "item_name" => {
            let Value::String(json) = value else {
                return Err(bad("a JSON text string"));
            };
            display_compound(tag).insert("Name", json.clone());
        }
        "lore" => {
            let Value::List(List::String(lines)) = value else {
                return Err(bad("a list of JSON text strings"));
            };
            display_compound(tag).insert("Lore", List::String(lines.clone()));
        }
        "unbreakable" => {
            tag.insert("Unbreakable", 1i8);
        }
        "damage" => {
            let damage = as_int(value).ok_or_else(|| bad("a whole number"))?;
            tag.insert("Damage", damage as i32);
        }
        "profile" => {
            let owner = match value {
                Value::String(name) => Value::String(name.clone()),
                Value::Compound(c) => {
                    let mut owner = Compound::new();
                    if let Some(Value::String(n)) = c.get("name") {
                        owner.insert("Name", n.clone());
                    }
                    if let Some(Value::IntArray(id)) = c.get("id") {
                        owner.insert("Id", Value::IntArray(id.clone()));
                    }
                    if let Some(Value::List(List::Compound(props))) = c.get("properties") {
                        let mut textures = Vec::new();
                        for p in props {
                            if let (Some(Value::String(n)), Some(Value::String(v))) =
                                (p.get("name"), p.get("value"))
                            {
                                if n == "textures" {
                                    let mut t = Compound::new();
                                    t.insert("Value", v.clone());
                                    if let Some(Value::String(sig)) = p.get("signature") {
                                        t.insert("Signature", sig.clone());
                                    }
                                    textures.push(t);
                                }
                            }
                        }
                        if !textures.is_empty() {
                            let mut properties = Compound::new();
                            properties.insert("textures", List::Compound(textures));
                            owner.insert("Properties", properties);
                        }
                    }
                    if owner.is_empty() {
                        return Err(bad("a player name or {name:..., properties:[...]}"));
                    }
                    Value::Compound(owner)
                }
                _ => return Err(bad("a player name or a profile compound")),
            };
            tag.insert("SkullOwner", owner);
        }
        _ => warnings.push(format!(
            "item component `{name}` has no 1.20.1 equivalent and is dropped"
        )),
    }
    Ok(())
}

/// Reads `block_state_snbt` (`{Name:"minecraft:oak_stairs",Properties:{facing:"east"}}`)
/// into a 1.20.1 block state. Unknown blocks, properties and values are refused.
pub fn block_state(text: &str) -> Result<BlockState, String> {
    block_state_compound(&parse_compound(text)?)
}

/// [`block_state`] for a compound already parsed (an nbt track's `block_state`).
pub fn block_state_compound(compound: &Compound) -> Result<BlockState, String> {
    let mut name = None;
    let mut properties = None;
    for (key, value) in compound.iter() {
        match (key.as_str(), value) {
            ("Name", Value::String(n)) => name = Some(n),
            ("Name", _) => return Err("block `Name` must be a string".to_owned()),
            ("Properties", Value::Compound(p)) => properties = Some(p),
            ("Properties", _) => return Err("block `Properties` must be a compound".to_owned()),
            (other, _) => {
                return Err(format!(
                    "unknown block state key `{other}`; allowed: Name, Properties"
                ))
            }
        }
    }
    let Some(name) = name else {
        return Err("block state needs a `Name` such as \"minecraft:stone\"".to_owned());
    };
    let Some(kind) = strip_minecraft(name).and_then(BlockKind::from_str) else {
        return Err(format!(
            "unknown block `{name}`: not a block of Minecraft 1.20.1"
        ));
    };
    let mut state = kind.to_state();
    if let Some(properties) = properties {
        for (prop, value) in properties.iter() {
            let prop_name = valence::block::PropName::from_str(prop)
                .filter(|p| kind.props().contains(p))
                .ok_or_else(|| {
                    let known: Vec<&str> = kind.props().iter().map(|p| p.to_str()).collect();
                    format!(
                        "block `{name}` has no property `{prop}`; its properties: {}",
                        if known.is_empty() {
                            "none".to_owned()
                        } else {
                            known.join(", ")
                        }
                    )
                })?;
            let text_value = match value {
                Value::String(s) => s.clone(),
                other => match as_int(other) {
                    Some(n) => n.to_string(),
                    None => return Err(format!("block property `{prop}` must be a string")),
                },
            };
            let prop_value = valence::block::PropValue::from_str(&text_value).ok_or_else(|| {
                format!("`{text_value}` is not a valid value of block property `{prop}`")
            })?;
            let next = state.set(prop_name, prop_value);
            if next.get(prop_name) != Some(prop_value) {
                return Err(format!(
                    "`{text_value}` is not a valid value of property `{prop}` of block `{name}`"
                ));
            }
            state = next;
        }
    }
    Ok(state)
}

/// Which display entity an `entity_nbt` compound is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DisplayKind {
    /// `minecraft:item_display`.
    Item,
    /// `minecraft:block_display`.
    Block,
    /// `minecraft:text_display`.
    Text,
}

/// Display-entity fields that playback owns: `entity_nbt` may not set them.
///
/// Identity (`id`, `UUID`), position (`Pos`, `Rotation`, `Motion`), the
/// transformation, interpolation (`interpolation_duration`,
/// `start_interpolation`, and 1.20.2's `teleport_duration`), the display
/// content (`item`, `item_display`, `block_state`, `text`) and `Passengers`.
pub const RUNTIME_OWNED_KEYS: &[&str] = &[
    "id",
    "UUID",
    "Pos",
    "Rotation",
    "Motion",
    "transformation",
    "interpolation_duration",
    "start_interpolation",
    "teleport_duration",
    "item",
    "item_display",
    "block_state",
    "text",
    "Passengers",
];

const NUMERIC_KEYS: &[&str] = &[
    "view_range",
    "shadow_radius",
    "shadow_strength",
    "width",
    "height",
    "glow_color_override",
];
const TEXT_ONLY_NUMERIC_KEYS: &[&str] = &["line_width", "background", "text_opacity"];
const TEXT_ONLY_FLAG_KEYS: &[&str] = &["shadow", "see_through", "default_background"];
const COMMON_FLAG_KEYS: &[&str] = &["Glowing", "CustomNameVisible", "Silent", "Invulnerable"];

/// Checks `entity_nbt` for one display kind: the runtime-owned keys are
/// refused, known 1.20.1 display fields are type-checked, and other keys are
/// kept with a warning (1.20.1 display entities ignore them).
pub fn entity_nbt(text: &str, kind: DisplayKind) -> SnbtResult<Compound> {
    let compound = parse_compound(text)?;
    if let Some(key) = compound
        .keys()
        .find(|key| RUNTIME_OWNED_KEYS.contains(&key.as_str()))
    {
        return Err(format!(
            "entity_nbt may not set `{key}`: playback owns identity, position, transformation, interpolation and display content ({})",
            RUNTIME_OWNED_KEYS.join(", ")
        ));
    }
    let warnings = display_fields(&compound, kind, "entity_nbt")?;
    Ok((compound, warnings))
}

/// Checks the display fields of `compound` (no runtime-owned key left in
/// it) for one display kind, as `entity_nbt` does; `what` names the source
/// in messages (`entity_nbt`, `nbt`). Returns the warnings: keys a 1.20.1
/// display ignores.
pub fn display_fields(
    compound: &Compound,
    kind: DisplayKind,
    what: &str,
) -> Result<Vec<String>, String> {
    let mut warnings = Vec::new();
    for (key, value) in compound.iter() {
        let key = key.as_str();
        let text_only = TEXT_ONLY_NUMERIC_KEYS.contains(&key)
            || TEXT_ONLY_FLAG_KEYS.contains(&key)
            || key == "alignment";
        if text_only && kind != DisplayKind::Text {
            return Err(format!("`{key}` belongs to text displays only"));
        }
        if NUMERIC_KEYS.contains(&key) || TEXT_ONLY_NUMERIC_KEYS.contains(&key) {
            if as_number(value).is_none() {
                return Err(format!("{what} `{key}` must be a number"));
            }
        } else if TEXT_ONLY_FLAG_KEYS.contains(&key) || COMMON_FLAG_KEYS.contains(&key) {
            if as_bool(value).is_none() {
                return Err(format!("{what} `{key}` must be a boolean byte such as 1b"));
            }
        } else if key == "billboard" {
            match value {
                Value::String(s) if ["fixed", "vertical", "horizontal", "center"].contains(&s.as_str()) => {}
                _ => return Err(format!("{what} `billboard` must be \"fixed\", \"vertical\", \"horizontal\" or \"center\"")),
            }
        } else if key == "alignment" {
            match value {
                Value::String(s) if ["center", "left", "right"].contains(&s.as_str()) => {}
                _ => {
                    return Err(format!(
                        "{what} `alignment` must be \"center\", \"left\" or \"right\""
                    ))
                }
            }
        } else if key == "brightness" {
            let ok = match value {
                Value::Compound(c) => {
                    c.len() == 2
                        && ["block", "sky"].iter().all(|k| {
                            c.get(*k)
                                .and_then(as_int)
                                .is_some_and(|v| (0..=15).contains(&v))
                        })
                }
                _ => false,
            };
            if !ok {
                return Err(format!(
                    "{what} `brightness` must be {{block:0..15,sky:0..15}}"
                ));
            }
        } else {
            warnings.push(format!(
                "{what} key `{key}` is not a 1.20.1 display entity field and is ignored"
            ));
        }
    }
    Ok(warnings)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modern_and_legacy_items_agree() {
        let (modern, w1) = item_stack(r#"{id:"minecraft:stick",count:3}"#).unwrap();
        let (legacy, w2) = item_stack(r#"{id:"minecraft:stick",Count:3b}"#).unwrap();
        assert_eq!(modern, legacy);
        assert_eq!(modern.item, ItemKind::Stick);
        assert_eq!(modern.count(), 3);
        assert!(w1.is_empty() && w2.is_empty());
    }

    #[test]
    fn components_become_tag() {
        let (stack, warnings) = item_stack(
            r#"{id:"minecraft:diamond_sword",count:1,components:{"minecraft:enchantments":{levels:{"minecraft:sharpness":5}},"minecraft:custom_model_data":7,"minecraft:rarity":"epic"}}"#,
        )
        .unwrap();
        let tag = stack.nbt.unwrap();
        let Some(Value::List(List::Compound(ench))) = tag.get("Enchantments") else {
            panic!("no enchantments in {tag:?}");
        };
        assert_eq!(
            ench[0].get("id"),
            Some(&Value::String("minecraft:sharpness".into()))
        );
        assert_eq!(ench[0].get("lvl"), Some(&Value::Short(5)));
        assert_eq!(tag.get("CustomModelData"), Some(&Value::Int(7)));
        assert_eq!(warnings.len(), 1);
        assert!(warnings[0].contains("minecraft:rarity"));
    }

    #[test]
    fn bad_items_are_refused() {
        for (snbt, needle) in [
            (r#"{id:"minecraft:mace",count:1}"#, "unknown item"),
            (r#"{id:"minecraft:stick",count:0}"#, "from 1 to 127"),
            (r#"{count:1}"#, "needs an `id`"),
            (
                r#"{id:"minecraft:stick",Slot:1b}"#,
                "unknown item stack key",
            ),
            (r#"{id:"minecraft:stick",tag:{},components:{}}"#, "not both"),
            (r#"{id:"minecraft:stick""#, "invalid SNBT"),
            (r#"[1,2]"#, "compound"),
        ] {
            let err = item_stack(snbt).unwrap_err();
            assert!(err.contains(needle), "{snbt}: {err}");
        }
    }

    #[test]
    fn block_states() {
        let state =
            block_state(r#"{Name:"minecraft:oak_stairs",Properties:{facing:"east",half:"top"}}"#)
                .unwrap();
        assert_eq!(state.to_kind(), BlockKind::OakStairs);
        assert_eq!(
            state.get(valence::block::PropName::Facing),
            Some(valence::block::PropValue::East)
        );
        assert!(block_state(r#"{Name:"minecraft:nope"}"#)
            .unwrap_err()
            .contains("unknown block"));
        assert!(
            block_state(r#"{Name:"minecraft:stone",Properties:{facing:"east"}}"#)
                .unwrap_err()
                .contains("no property `facing`")
        );
        assert!(
            block_state(r#"{Name:"minecraft:oak_stairs",Properties:{facing:"up"}}"#)
                .unwrap_err()
                .contains("not a valid value")
        );
    }

    #[test]
    fn entity_nbt_rules() {
        let (_, w) = entity_nbt(
            r#"{billboard:"center",brightness:{block:15,sky:15},glowing:1b}"#,
            DisplayKind::Item,
        )
        .unwrap();
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(entity_nbt("{transformation:{}}", DisplayKind::Item)
            .unwrap_err()
            .contains("may not set `transformation`"));
        assert!(entity_nbt("{line_width:100}", DisplayKind::Block)
            .unwrap_err()
            .contains("text displays only"));
        assert!(entity_nbt("{line_width:100,shadow:1b}", DisplayKind::Text).is_ok());
        assert!(entity_nbt(r#"{billboard:"sideways"}"#, DisplayKind::Text).is_err());
    }
}
