//! Particle and sound arguments: the particle names 1.20.1 knows, sound
//! ids and sound categories.

use valence::ident::Ident;
use valence::prelude::*;
use valence::protocol::sound::SoundCategory;

use crate::server::syntax::{CommandError, Words};

/// A `minecraft:` resource name (namespace optional): `heart`, `minecraft:stone`.
pub(super) fn vanilla_name(name: &str) -> Option<&str> {
    match name.split_once(':') {
        Some(("minecraft", path)) => Some(path),
        Some(_) => None,
        None => Some(name),
    }
}

/// The 1.20.1 particles that take no parameters, by name.
pub(super) const SIMPLE_PARTICLES: &[(&str, Particle)] = &[
    ("ambient_entity_effect", Particle::AmbientEntityEffect),
    ("angry_villager", Particle::AngryVillager),
    ("bubble", Particle::Bubble),
    ("cloud", Particle::Cloud),
    ("crit", Particle::Crit),
    ("damage_indicator", Particle::DamageIndicator),
    ("dragon_breath", Particle::DragonBreath),
    ("dripping_lava", Particle::DrippingLava),
    ("falling_lava", Particle::FallingLava),
    ("landing_lava", Particle::LandingLava),
    ("dripping_water", Particle::DrippingWater),
    ("falling_water", Particle::FallingWater),
    ("effect", Particle::Effect),
    ("elder_guardian", Particle::ElderGuardian),
    ("enchanted_hit", Particle::EnchantedHit),
    ("enchant", Particle::Enchant),
    ("end_rod", Particle::EndRod),
    ("entity_effect", Particle::EntityEffect),
    ("explosion_emitter", Particle::ExplosionEmitter),
    ("explosion", Particle::Explosion),
    ("sonic_boom", Particle::SonicBoom),
    ("firework", Particle::Firework),
    ("fishing", Particle::Fishing),
    ("flame", Particle::Flame),
    ("cherry_leaves", Particle::CherryLeaves),
    ("sculk_soul", Particle::SculkSoul),
    ("sculk_charge_pop", Particle::SculkChargePop),
    ("soul_fire_flame", Particle::SoulFireFlame),
    ("soul", Particle::Soul),
    ("flash", Particle::Flash),
    ("happy_villager", Particle::HappyVillager),
    ("composter", Particle::Composter),
    ("heart", Particle::Heart),
    ("instant_effect", Particle::InstantEffect),
    ("item_slime", Particle::ItemSlime),
    ("item_snowball", Particle::ItemSnowball),
    ("large_smoke", Particle::LargeSmoke),
    ("lava", Particle::Lava),
    ("mycelium", Particle::Mycelium),
    ("note", Particle::Note),
    ("poof", Particle::Poof),
    ("portal", Particle::Portal),
    ("rain", Particle::Rain),
    ("smoke", Particle::Smoke),
    ("sneeze", Particle::Sneeze),
    ("spit", Particle::Spit),
    ("squid_ink", Particle::SquidInk),
    ("sweep_attack", Particle::SweepAttack),
    ("totem_of_undying", Particle::TotemOfUndying),
    ("underwater", Particle::Underwater),
    ("splash", Particle::Splash),
    ("witch", Particle::Witch),
    ("bubble_pop", Particle::BubblePop),
    ("current_down", Particle::CurrentDown),
    ("bubble_column_up", Particle::BubbleColumnUp),
    ("nautilus", Particle::Nautilus),
    ("dolphin", Particle::Dolphin),
    ("campfire_cosy_smoke", Particle::CampfireCosySmoke),
    ("campfire_signal_smoke", Particle::CampfireSignalSmoke),
    ("dripping_honey", Particle::DrippingHoney),
    ("falling_honey", Particle::FallingHoney),
    ("landing_honey", Particle::LandingHoney),
    ("falling_nectar", Particle::FallingNectar),
    ("falling_spore_blossom", Particle::FallingSporeBlossom),
    ("ash", Particle::Ash),
    ("crimson_spore", Particle::CrimsonSpore),
    ("warped_spore", Particle::WarpedSpore),
    ("spore_blossom_air", Particle::SporeBlossomAir),
    ("dripping_obsidian_tear", Particle::DrippingObsidianTear),
    ("falling_obsidian_tear", Particle::FallingObsidianTear),
    ("landing_obsidian_tear", Particle::LandingObsidianTear),
    ("reverse_portal", Particle::ReversePortal),
    ("white_ash", Particle::WhiteAsh),
    ("small_flame", Particle::SmallFlame),
    ("snowflake", Particle::Snowflake),
    ("dripping_dripstone_lava", Particle::DrippingDripstoneLava),
    ("falling_dripstone_lava", Particle::FallingDripstoneLava),
    ("dripping_dripstone_water", Particle::DrippingDripstoneWater),
    ("falling_dripstone_water", Particle::FallingDripstoneWater),
    ("glow_squid_ink", Particle::GlowSquidInk),
    ("glow", Particle::Glow),
    ("wax_on", Particle::WaxOn),
    ("wax_off", Particle::WaxOff),
    ("electric_spark", Particle::ElectricSpark),
    ("scrape", Particle::Scrape),
    ("egg_crack", Particle::EggCrack),
];

/// Reads a particle name and its parameters.
pub(super) fn parse_particle(words: &mut Words) -> Result<Particle, CommandError> {
    let name = words.require("a particle name")?;
    let usage = words.usage();
    let unknown = || CommandError::UnknownParticle {
        name: name.to_owned(),
        usage,
    };
    let path = vanilla_name(name).ok_or_else(unknown)?;
    if let Some((_, p)) = SIMPLE_PARTICLES.iter().find(|(n, _)| *n == path) {
        return Ok(p.clone());
    }
    let color = |words: &mut Words| -> Result<Vec3, CommandError> {
        Ok(Vec3::new(
            words.finite("a red value")?,
            words.finite("a green value")?,
            words.finite("a blue value")?,
        ))
    };
    Ok(match path {
        "dust" => {
            let rgb = color(words)?;
            Particle::Dust {
                rgb,
                scale: words.finite("a dust size")?,
            }
        }
        "dust_color_transition" => {
            let from_rgb = color(words)?;
            let scale = words.finite("a dust size")?;
            Particle::DustColorTransition {
                from_rgb,
                scale,
                to_rgb: color(words)?,
            }
        }
        "sculk_charge" => Particle::SculkCharge {
            roll: words.finite("a roll angle")?,
        },
        "shriek" => Particle::Shriek {
            delay: words.number("a delay", "a whole number of ticks")?,
        },
        "block" | "block_marker" | "falling_dust" => {
            let block = words.require("a block name")?;
            let kind = vanilla_name(block)
                .filter(|b| !b.contains('['))
                .and_then(BlockKind::from_str)
                .ok_or_else(|| words.invalid(block, "a block name (without [properties])"))?;
            let state = kind.to_state();
            match path {
                "block" => Particle::Block(state),
                "block_marker" => Particle::BlockMarker(state),
                _ => Particle::FallingDust(state),
            }
        }
        "item" => {
            let item = words.require("an item name")?;
            let kind = vanilla_name(item)
                .and_then(ItemKind::from_str)
                .ok_or_else(|| words.invalid(item, "an item name (without NBT)"))?;
            Particle::Item(Some(ItemStack::new(kind, 1, None)))
        }
        "vibration" => {
            return Err(CommandError::Unsupported {
                what: "The `vibration` particle".to_owned(),
                hint: "it needs a destination block or entity; use another particle",
            })
        }
        _ => return Err(unknown()),
    })
}

pub(super) fn parse_sound_category(word: &str) -> Option<SoundCategory> {
    Some(match word {
        "master" => SoundCategory::Master,
        "music" => SoundCategory::Music,
        "record" => SoundCategory::Record,
        "weather" => SoundCategory::Weather,
        "block" => SoundCategory::Block,
        "hostile" => SoundCategory::Hostile,
        "neutral" => SoundCategory::Neutral,
        "player" => SoundCategory::Player,
        "ambient" => SoundCategory::Ambient,
        "voice" => SoundCategory::Voice,
        _ => return None,
    })
}

pub(super) const SOUND_CATEGORIES: &str = "a sound source (master, music, record, weather, block, hostile, neutral, player, ambient or voice)";

pub(super) fn parse_sound_id(words: &Words, word: &str) -> Result<Ident<String>, CommandError> {
    Ident::new(word).map(|i| i.to_string_ident()).map_err(|_| {
        words.invalid(
            word,
            "a sound identifier such as minecraft:block.note_block.bell",
        )
    })
}
