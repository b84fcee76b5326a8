//! What each node of an Animation draws, and where it is at each tick.
//!
//! The shapes, in the node's frame (before its matrix):
//!
//! - **A `player_head` skull** (every skin-bound node, and any other
//!   `player_head`): the skull renderer's 8×8×8-px cube, 0.5 block wide,
//!   whose top face is at the item's origin and which hangs downward
//!   (x, z ∈ [−0.25, 0.25], y ∈ [−0.5, 0]), plus its hat cube 0.25 px
//!   larger on every side. This is what vanilla draws for a skull item:
//!   the item renderer moves a `builtin/entity` item by (−0.5, −0.5, −0.5)
//!   and the skull renderer moves it back by (0.5, 0, 0.5) and draws the
//!   head upward from there. An item display turns its item half a turn
//!   about Y, and then applies the item model's display transform: for a
//!   skin-bound node that is the slice model's
//!   ([`pack::models::slice_transform`](crate::pack::models::slice_transform):
//!   half a turn back, so the part faces +Z, and slim arms narrowed), for
//!   any other skull none (so it faces −Z, whatever its `item_display`).
//!   A skin-bound node shows its slice of the part
//!   ([`pack::slices::animation_slices`](crate::pack::slices::animation_slices),
//!   the slicing rule the pack uses); any other skull shows the head.
//! - **Another item display** (a `participant_hand` item too): a cube
//!   0.5 block wide centred on the node's origin, coloured by its item's
//!   name (a hash of it, so the same item is always the same colour).
//! - **A block display**: the unit cube from the origin to (1, 1, 1), as
//!   vanilla draws a block display, coloured by the block's name.
//! - **A text display**: a label with its text at the node's origin.
//! - **An anchor**: nothing.
//!
//! A node is drawn at a tick when it is visible then. Poses come from the
//! same sampling as `emoted sample` ([`library::sample::sample_ticks`](crate::library::sample::sample_ticks)):
//! every root at the origin facing yaw 0, ticks past the duration holding
//! the final pose, Molang randomness from the seed.

use glam::{Affine3A, Mat4, Quat, Vec3};

use super::cuboid::Cuboid;
use super::image::Rgba;
use crate::anim::quat_from_euler_degrees;
use crate::format::node::{Arm, BodyPart};
use crate::format::AnimationFile;
use crate::library::CompiledAnimation;
use crate::pack::models::slice_transform;
use crate::pack::skin_uv::{Layer, Slice};
use crate::pack::slices::animation_slices;
use crate::playback::live::sample::{sample_ticks_live, LiveSampleError, SampleInputs};

/// The skull's box in its item's frame: 0.5 block wide, top at the origin.
pub const SKULL_BOX: Cuboid = Cuboid {
    min: Vec3::new(-0.25, -0.5, -0.25),
    max: Vec3::new(0.25, 0.0, 0.25),
};

/// How much larger the skull's hat (overlay) cube is on every side, in
/// blocks: vanilla's 0.25 px of a 16-px block.
pub const HAT_INFLATION_BLOCKS: f32 = 0.25 / 16.0;

/// The cube an item display other than a skull is drawn as.
pub const ITEM_BOX: Cuboid = Cuboid {
    min: Vec3::splat(-0.25),
    max: Vec3::splat(0.25),
};

/// The cube a block display is drawn as.
pub const BLOCK_BOX: Cuboid = Cuboid {
    min: Vec3::ZERO,
    max: Vec3::ONE,
};

/// What a node draws.
#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    /// A skull textured with a slice of the skin.
    Skull {
        /// The slice its faces show.
        slice: Slice,
        /// The item display's and the item model's transforms: from the
        /// skull's frame ([`SKULL_BOX`]) to the node's.
        item_transform: Affine3A,
    },
    /// A box of one colour.
    Solid {
        /// The box in the node's frame.
        cuboid: Cuboid,
        /// Its colour.
        colour: Rgba,
    },
    /// A text label at the node's origin.
    Label {
        /// The text, one line.
        text: String,
    },
}

/// A skull's two cubes, base layer first, in the skull's frame.
pub fn skull_layers() -> [(Layer, Cuboid); 2] {
    [
        (Layer::Base, SKULL_BOX),
        (Layer::Overlay, SKULL_BOX.inflated(HAT_INFLATION_BLOCKS)),
    ]
}

impl Shape {
    /// The boxes it draws, each in the frame [`Self::local_transform`]
    /// leads from: a skull's two layers, a solid box, nothing for a label.
    pub fn boxes(&self) -> Vec<Cuboid> {
        match self {
            Shape::Skull { .. } => skull_layers().iter().map(|(_, c)| *c).collect(),
            Shape::Solid { cuboid, .. } => vec![*cuboid],
            Shape::Label { .. } => Vec::new(),
        }
    }

    /// From the frame of [`Self::boxes`] to the node's.
    pub fn local_transform(&self) -> Affine3A {
        match self {
            Shape::Skull { item_transform, .. } => *item_transform,
            _ => Affine3A::IDENTITY,
        }
    }
}

/// A node that draws something.
#[derive(Clone, Debug, PartialEq)]
pub struct DrawnNode {
    /// The node's id.
    pub id: String,
    /// What it draws.
    pub shape: Shape,
}

/// The transform of a skull item: the item display's half turn about Y
/// after the item model's display transform (translation in 1/16 blocks,
/// XYZ Euler degrees, scale).
fn skull_item_transform(model: ([f32; 3], [f32; 3], [f32; 3])) -> Affine3A {
    let (translation, rotation_degrees, scale) = model;
    let half_turn = Affine3A::from_quat(Quat::from_rotation_y(std::f32::consts::PI));
    half_turn
        * Affine3A::from_scale_rotation_translation(
            Vec3::from(scale),
            quat_from_euler_degrees(Vec3::from(rotation_degrees)),
            Vec3::from(translation) / 16.0,
        )
}

/// A colour for a name: the same name, the same colour; bright enough to
/// read on the sheet's light background.
pub fn colour_of(name: &str) -> Rgba {
    // FNV-1a, then the hash picks a hue.
    let hash = name.bytes().fold(0x811c_9dc5_u32, |h, b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    });
    let hue = (hash % 360) as f32;
    let (saturation, value) = (0.55, 0.8);
    let chroma = value * saturation;
    let x = chroma * (1.0 - ((hue / 60.0) % 2.0 - 1.0).abs());
    let (r, g, b) = match (hue / 60.0) as u32 {
        0 => (chroma, x, 0.0),
        1 => (x, chroma, 0.0),
        2 => (0.0, chroma, x),
        3 => (0.0, x, chroma),
        4 => (x, 0.0, chroma),
        _ => (chroma, 0.0, x),
    };
    let m = value - chroma;
    let byte = |c: f32| ((c + m) * 255.0).round().clamp(0.0, 255.0) as u8;
    [byte(r), byte(g), byte(b), 255]
}

/// What every node of `file` draws, in the file's node order (anchors
/// left out); arms of skin-bound nodes are `slim` or classic.
pub fn node_shapes(file: &AnimationFile, slim: bool) -> Vec<DrawnNode> {
    let slices = animation_slices(file);
    file.nodes
        .iter()
        .filter_map(|node| {
            let kind = &node.kind;
            let shape = if let Some(bound) = slices.iter().find(|s| s.node_id == node.id) {
                let slice = bound.slice(slim);
                Shape::Skull {
                    slice,
                    item_transform: skull_item_transform(slice_transform(&slice)),
                }
            } else if kind.item_name() == Some("player_head") {
                Shape::Skull {
                    slice: Slice::full(BodyPart::Head, slim),
                    item_transform: skull_item_transform(([0.0; 3], [0.0; 3], [1.0; 3])),
                }
            } else if let Some(name) = kind.item_name() {
                Shape::Solid {
                    cuboid: ITEM_BOX,
                    colour: colour_of(name),
                }
            } else if let Some(arm) = kind.hand() {
                let name = match arm {
                    Arm::Left => "participant_hand:left",
                    Arm::Right => "participant_hand:right",
                };
                Shape::Solid {
                    cuboid: ITEM_BOX,
                    colour: colour_of(name),
                }
            } else if let Some(name) = kind.block_name() {
                if name == "air" {
                    return None;
                }
                Shape::Solid {
                    cuboid: BLOCK_BOX,
                    colour: colour_of(name),
                }
            } else if let Some(text) = kind.plain_text() {
                Shape::Label {
                    text: text.lines().next().unwrap_or("").to_owned(),
                }
            } else {
                return None;
            };
            Some(DrawnNode {
                id: node.id.clone(),
                shape,
            })
        })
        .collect()
}

/// One drawn node at one tick: which ([`DrawnNode`] index) and its matrix
/// in the root's frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Placed {
    /// The index into the shapes of [`node_shapes`].
    pub shape_index: usize,
    /// The node's composed matrix in its root's frame.
    pub matrix: Affine3A,
}

/// The nodes visible at one tick.
#[derive(Clone, Debug, PartialEq)]
pub struct Frame {
    /// The tick after the start.
    pub tick: u32,
    /// Every visible drawn node.
    pub placed: Vec<Placed>,
}

/// Samples `animation` at `ticks` (as `emoted sample` does) and places the
/// visible nodes of `shapes` at each.
pub fn sample_frames(
    animation: &CompiledAnimation,
    shapes: &[DrawnNode],
    ticks: &[u32],
    seed: u64,
    live: &SampleInputs,
) -> Result<Vec<Frame>, LiveSampleError> {
    let lines = sample_ticks_live(animation, ticks, seed, live)?;
    Ok(lines
        .into_iter()
        .map(|line| {
            let placed = shapes
                .iter()
                .enumerate()
                .filter_map(|(shape_index, drawn)| {
                    let sample = line.nodes.get(&drawn.id)?;
                    sample.visible.then(|| Placed {
                        shape_index,
                        matrix: Affine3A::from_mat4(Mat4::from_cols_array(&sample.matrix)),
                    })
                })
                .collect();
            Frame {
                tick: line.tick,
                placed,
            }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::{parse_emote_json, EmoteFile};

    fn bow() -> AnimationFile {
        let text = include_str!("../../emotes/bow.json");
        match parse_emote_json(text).file {
            Some(EmoteFile::Animation(file)) => file,
            _ => panic!("the bundled bow is an Animation"),
        }
    }

    #[test]
    fn skin_bound_skulls_face_the_front_and_hang_from_the_origin() {
        let shapes = node_shapes(&bow(), false);
        let head = shapes.iter().find(|n| n.id == "head").expect("head");
        let Shape::Skull {
            slice,
            item_transform,
        } = &head.shape
        else {
            panic!("the head is a skull: {:?}", head.shape);
        };
        assert_eq!(slice.part(), BodyPart::Head);
        // Half a turn and half a turn back: the skull's front stays at +Z.
        assert!(item_transform
            .transform_vector3(Vec3::Z)
            .abs_diff_eq(Vec3::Z, 1e-6));
        assert!(item_transform
            .transform_point3(Vec3::ZERO)
            .abs_diff_eq(Vec3::ZERO, 1e-6));
        // Eleven nodes, four anchors: seven skulls.
        assert_eq!(shapes.len(), 7);
        assert!(shapes
            .iter()
            .all(|n| matches!(n.shape, Shape::Skull { .. })));
    }

    #[test]
    fn a_slim_arm_is_three_quarters_wide_and_keeps_its_shoulder_edge() {
        let shapes = node_shapes(&bow(), true);
        for (id, inner_x) in [("arm_r", 0.25), ("arm_l", -0.25)] {
            let arm = shapes.iter().find(|n| n.id == id).expect("arm");
            let Shape::Skull {
                slice,
                item_transform,
            } = &arm.shape
            else {
                panic!("{id} is a skull");
            };
            assert!(slice.slim());
            let xs: Vec<f32> = SKULL_BOX
                .corners()
                .iter()
                .map(|c| item_transform.transform_point3(*c).x)
                .collect();
            let (min, max) = xs
                .iter()
                .fold((f32::MAX, f32::MIN), |(a, b), x| (a.min(*x), b.max(*x)));
            assert!((max - min - 0.375).abs() < 1e-6, "{id}: {min}..{max}");
            // The edge toward the body (+X for the right arm) stays.
            let inner = if inner_x > 0.0 { max } else { min };
            assert!((inner - inner_x).abs() < 1e-6, "{id}: {min}..{max}");
        }
    }

    #[test]
    fn other_displays_are_boxes_and_labels() {
        let text = r#"{"type":"animation","schema_version":4,"id":"test:shapes","metadata":{"name":"S"},"settings":{},
          "nodes":{
            "apple":{"type":"item_display","space":"initiator","item_stack_snbt":"{id:\"minecraft:apple\",count:1}","item_display":"fixed","transform":{"position":[0,1,0],"rotation":[0,0,0],"scale":[1,1,1]}},
            "skull":{"type":"item_display","space":"initiator","item_stack_snbt":"{id:\"minecraft:player_head\",count:1}","item_display":"none","transform":{"position":[0,0,0],"rotation":[0,0,0],"scale":[1,1,1]}},
            "stone":{"type":"block_display","space":"scene","block_state_snbt":"{Name:\"minecraft:stone\"}","transform":{"position":[0,0,0],"rotation":[0,0,0],"scale":[1,1,1]}},
            "sign":{"type":"text_display","space":"scene","text":{"text":"Hi\nthere"},"transform":{"position":[0,2,0],"rotation":[0,0,0],"scale":[1,1,1]}},
            "pivot":{"type":"anchor","space":"scene","transform":{"position":[0,0,0],"rotation":[0,0,0],"scale":[1,1,1]}}
          },
          "timeline":{"duration":"10t"}}"#;
        let Some(EmoteFile::Animation(file)) = parse_emote_json(text).file else {
            panic!("valid");
        };
        let shapes = node_shapes(&file, false);
        let shape = |id: &str| shapes.iter().find(|n| n.id == id).map(|n| n.shape.clone());
        assert_eq!(
            shape("apple"),
            Some(Shape::Solid {
                cuboid: ITEM_BOX,
                colour: colour_of("apple")
            })
        );
        assert!(matches!(shape("stone"), Some(Shape::Solid { cuboid, .. }) if cuboid == BLOCK_BOX));
        assert_eq!(shape("sign"), Some(Shape::Label { text: "Hi".into() }));
        assert_eq!(shape("pivot"), None);
        // A skull that is not skin-bound faces −Z, as `none` shows it.
        let Some(Shape::Skull { item_transform, .. }) = shape("skull") else {
            panic!("a skull");
        };
        assert!(item_transform
            .transform_vector3(Vec3::Z)
            .abs_diff_eq(Vec3::NEG_Z, 1e-6));
        assert_ne!(colour_of("apple"), colour_of("stone"));
    }

    #[test]
    fn frames_place_visible_nodes_at_their_sampled_matrices() {
        let file = bow();
        let compiled = CompiledAnimation::compile(&file).expect("compiles");
        let shapes = node_shapes(&file, false);
        let frames = sample_frames(&compiled, &shapes, &[0, 20], 0, &SampleInputs::default())
            .expect("samples");
        assert_eq!(frames.iter().map(|f| f.tick).collect::<Vec<_>>(), [0, 20]);
        let matrix = |frame: &Frame, id: &str| {
            frame
                .placed
                .iter()
                .find(|p| shapes[p.shape_index].id == id)
                .map(|p| p.matrix)
        };
        // The legs hang from the hips, 0.7 blocks up, and stay; the head bows.
        let leg = matrix(&frames[0], "leg_r").expect("drawn");
        assert!((leg.translation.y - 0.7031).abs() < 1e-4);
        assert_eq!(matrix(&frames[1], "leg_r"), Some(leg));
        assert_ne!(matrix(&frames[1], "head"), matrix(&frames[0], "head"));
    }
}
