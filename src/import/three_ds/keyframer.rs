//! The keyframer chunk (`0xB000`) as a [`Scene`]: its header, segment
//! and nodes, linked into a hierarchy.
//!
//! # What is read
//! - `0x4D4D` main: only its keyframer child; the editor (`0x3D3D`) and
//!   everything else is skipped by length, as are bytes after the main
//!   chunk. A second keyframer is refused.
//! - `0xB000` keyframer: `0xB00A` header (`u16` revision, name, `u32`
//!   frame count), `0xB008` segment (two `i32` frames), and the node
//!   chunks `0xB001`–`0xB007`. Each of these appears at most once but the
//!   nodes; the rest (current frame, viewports) is skipped.
//! - Every node kind is read, because every kind is numbered and may be a
//!   parent: `0xB030` id, `0xB010` header (name, two flag words, parent
//!   id), and by kind:
//!   - object nodes (`0xB002`): `0xB011` instance name, `0xB013` pivot,
//!     `0xB014` bounding box, and position, rotation, scale and hide
//!     tracks;
//!   - camera, target, omni and spot nodes: their position track only
//!     (their field of view, roll, colour, hotspot and falloff tracks are
//!     skipped), as lib3ds places them by position alone;
//!   - the ambient node: nothing but its id and header (it has a colour
//!     track, skipped).
//!
//!   Morph and smoothing chunks are skipped. A node without
//!   a header is refused, and each node chunk may appear only once.
//!
//! # Ids and the hierarchy
//! A node's id is its `0xB030` chunk, or else its index among all the
//! keyframer's nodes in file order (lib3ds's numbering; past 65,535 the
//! index wraps as lib3ds's does, which makes ids repeat). Ids must be
//! unique. A header's parent id names the parent, `0xFFFF` none. A parent
//! id that names no node, and a node that is its own ancestor, are
//! refused at the node's offset (lib3ds keeps the first as a root and
//! would loop on the second). [`Scene::parent_first`] gives the nodes
//! breadth-first from the roots, so a parent always comes before its
//! children; nothing recurses, however deep the hierarchy.

use std::collections::{BTreeMap, VecDeque};

use glam::Vec3;

use super::chunks::{Chunk, Limits, Walker};
use super::tracks::{
    read_hide, read_position, read_rotation, read_scale, RotationTrack, Track, HIDE_TRACK,
    POSITION_TRACK, ROTATION_TRACK, SCALE_TRACK,
};
use super::{Place, ReadError};

/// The main chunk.
pub const MAIN: u16 = 0x4D4D;
/// The keyframer chunk.
pub const KEYFRAMER: u16 = 0xB000;
/// The keyframer header chunk.
pub const KEYFRAMER_HEADER: u16 = 0xB00A;
/// The active segment chunk.
pub const SEGMENT: u16 = 0xB008;
/// A node's id chunk.
pub const NODE_ID: u16 = 0xB030;
/// A node's header chunk.
pub const NODE_HEADER: u16 = 0xB010;
/// A node's instance name chunk.
pub const INSTANCE_NAME: u16 = 0xB011;
/// A node's pivot chunk.
pub const PIVOT: u16 = 0xB013;
/// A node's bounding box chunk.
pub const BOUNDING_BOX: u16 = 0xB014;
/// The parent id of a root node.
pub const NO_PARENT: u16 = 0xFFFF;
/// The object name of a dummy object, whose real name is its instance name.
pub const DUMMY_NAME: &str = "$$$DUMMY";
/// Bit 11 of a node's first flag word: the node is hidden.
pub const HIDDEN_FLAG: u16 = 0x0800;

/// What a node animates, from its chunk id.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeKind {
    /// `0xB001`: the ambient light.
    Ambient,
    /// `0xB002`: a mesh or a dummy object.
    Object,
    /// `0xB003`: a camera.
    Camera,
    /// `0xB004`: a camera's target.
    CameraTarget,
    /// `0xB005`: an omni light.
    Light,
    /// `0xB006`: a spotlight's target.
    SpotlightTarget,
    /// `0xB007`: a spotlight.
    Spotlight,
}

impl NodeKind {
    /// The kind a node chunk id stands for.
    pub fn of_chunk(id: u16) -> Option<NodeKind> {
        Some(match id {
            0xB001 => NodeKind::Ambient,
            0xB002 => NodeKind::Object,
            0xB003 => NodeKind::Camera,
            0xB004 => NodeKind::CameraTarget,
            0xB005 => NodeKind::Light,
            0xB006 => NodeKind::SpotlightTarget,
            0xB007 => NodeKind::Spotlight,
            _ => return None,
        })
    }
}

/// The keyframer header (`0xB00A`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyframerHeader {
    /// The keyframer revision.
    pub revision: u16,
    /// The scene's name.
    pub name: String,
    /// The animation's length in frames.
    pub frame_count: u32,
}

/// The active segment (`0xB008`): the frames an author plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Segment {
    /// The first frame.
    pub first_frame: i32,
    /// The last frame.
    pub last_frame: i32,
}

/// One node: an animated thing, its place in the hierarchy and its tracks.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    /// The offset of its chunk in the file.
    pub offset: usize,
    /// What it animates.
    pub kind: NodeKind,
    /// Its id (`0xB030`, or its index among the nodes).
    pub id: u16,
    /// The editor object it animates (`0xB010`).
    pub object_name: String,
    /// Its instance name (`0xB011`), the real name of a dummy.
    pub instance_name: Option<String>,
    /// The header's first flag word (bit 11: hidden).
    pub flags1: u16,
    /// The header's second flag word.
    pub flags2: u16,
    /// The parent id the header gives ([`NO_PARENT`] for a root).
    pub parent_id: u16,
    /// The parent's index in [`Scene::nodes`].
    pub parent: Option<usize>,
    /// The centre of rotation and scaling of its mesh (`0xB013`), in the
    /// node's frame; zero when absent.
    pub pivot: Vec3,
    /// Its mesh's bounding box (`0xB014`: the smallest then the largest
    /// corner, in the mesh's own frame, which the pivot is in); `None`
    /// when absent.
    pub bounding_box: Option<(Vec3, Vec3)>,
    /// Its position track (no keys: the origin).
    pub position: Track<Vec3>,
    /// Its rotation track (no keys: no turn).
    pub rotation: RotationTrack,
    /// Its scale track (no keys: scale 1).
    pub scale: Track<Vec3>,
    /// Its hide track: each key toggles it between shown and hidden.
    pub hide: Track<()>,
}

impl Node {
    /// The name an author sees: the instance name of a `$$$DUMMY`, else
    /// the object name.
    pub fn name(&self) -> &str {
        match &self.instance_name {
            Some(instance) if self.object_name == DUMMY_NAME => instance,
            _ => &self.object_name,
        }
    }

    /// Whether the header marks it hidden before any hide key.
    pub fn starts_hidden(&self) -> bool {
        self.flags1 & HIDDEN_FLAG != 0
    }
}

/// A keyframer: its header, segment and nodes.
#[derive(Clone, Debug, PartialEq)]
pub struct Scene {
    /// The keyframer header, when the file has one.
    pub header: Option<KeyframerHeader>,
    /// The active segment, when the file has one.
    pub segment: Option<Segment>,
    /// The nodes in file order.
    pub nodes: Vec<Node>,
    parent_first: Vec<usize>,
}

impl Scene {
    /// The indices of [`Scene::nodes`], breadth-first from the roots (in
    /// file order), so every parent comes before its children.
    pub fn parent_first(&self) -> &[usize] {
        &self.parent_first
    }

    /// The node with id `id`.
    pub fn node_by_id(&self, id: u16) -> Option<&Node> {
        self.nodes.iter().find(|n| n.id == id)
    }
}

/// Reads the keyframer of a `.3ds` file with the default [`Limits`].
pub fn read_scene(bytes: &[u8]) -> Result<Scene, ReadError> {
    read_scene_with(bytes, Limits::default())
}

/// Reads the keyframer of a `.3ds` file within `limits`.
pub fn read_scene_with(bytes: &[u8], limits: Limits) -> Result<Scene, ReadError> {
    let mut walker = Walker::new(bytes, limits)?;
    let mut top = walker.top_level();
    let Some(main) = walker.next(&mut top)? else {
        return Err(ReadError::TruncatedHeader {
            offset: 0,
            left_bytes: 0,
            parent: Place::File,
        });
    };
    if main.id != MAIN {
        return Err(ReadError::NotThreeDs {
            offset: main.offset,
            id: main.id,
        });
    }
    let mut children = walker.children(&main, 0);
    let mut keyframer = None;
    while let Some(child) = walker.next(&mut children)? {
        if child.id == KEYFRAMER {
            if let Some((first, _)) = &keyframer {
                return Err(duplicate(&child, &main, *first));
            }
            keyframer = Some((child.offset, read_keyframer(&mut walker, &child)?));
        }
    }
    let Some((_, mut scene)) = keyframer else {
        return Err(ReadError::NoKeyframer {
            offset: main.offset,
        });
    };
    scene.parent_first = link(&mut scene.nodes)?;
    Ok(scene)
}

fn duplicate(chunk: &Chunk, parent: &Chunk, first_offset: usize) -> ReadError {
    ReadError::Duplicate {
        offset: chunk.offset,
        id: chunk.id,
        parent: Place::Chunk(parent.id),
        first_offset,
    }
}

/// Refuses `chunk` when `seen` already holds one; remembers it otherwise.
fn once(seen: &mut Option<usize>, chunk: &Chunk, parent: &Chunk) -> Result<(), ReadError> {
    if let Some(first) = *seen {
        return Err(duplicate(chunk, parent, first));
    }
    *seen = Some(chunk.offset);
    Ok(())
}

fn read_keyframer(walker: &mut Walker<'_>, keyframer: &Chunk) -> Result<Scene, ReadError> {
    let mut scene = Scene {
        header: None,
        segment: None,
        nodes: Vec::new(),
        parent_first: Vec::new(),
    };
    let (mut header_at, mut segment_at) = (None, None);
    let mut children = walker.children(keyframer, 0);
    while let Some(child) = walker.next(&mut children)? {
        match child.id {
            KEYFRAMER_HEADER => {
                once(&mut header_at, &child, keyframer)?;
                let mut f = walker.fields(&child);
                scene.header = Some(KeyframerHeader {
                    revision: f.u16("the keyframer revision")?,
                    name: f.cstring("the scene name")?,
                    frame_count: f.u32("the frame count")?,
                });
            }
            SEGMENT => {
                once(&mut segment_at, &child, keyframer)?;
                let mut f = walker.fields(&child);
                scene.segment = Some(Segment {
                    first_frame: f.i32("the segment's first frame")?,
                    last_frame: f.i32("the segment's last frame")?,
                });
            }
            id => {
                if let Some(kind) = NodeKind::of_chunk(id) {
                    // lib3ds's numbering, wrapping past u16 as lib3ds's does.
                    let index = scene.nodes.len() as u16;
                    scene.nodes.push(read_node(walker, &child, kind, index)?);
                }
            }
        }
    }
    Ok(scene)
}

fn read_node(
    walker: &mut Walker<'_>,
    chunk: &Chunk,
    kind: NodeKind,
    index: u16,
) -> Result<Node, ReadError> {
    let mut node = Node {
        offset: chunk.offset,
        kind,
        id: index,
        object_name: String::new(),
        instance_name: None,
        flags1: 0,
        flags2: 0,
        parent_id: NO_PARENT,
        parent: None,
        pivot: Vec3::ZERO,
        bounding_box: None,
        position: Track::default(),
        rotation: RotationTrack::default(),
        scale: Track::default(),
        hide: Track::default(),
    };
    let object = kind == NodeKind::Object;
    let placed = kind != NodeKind::Ambient;
    let mut seen: BTreeMap<u16, usize> = BTreeMap::new();
    let mut children = walker.children(chunk, 0);
    while let Some(child) = walker.next(&mut children)? {
        let wanted = match child.id {
            NODE_ID | NODE_HEADER => true,
            POSITION_TRACK => placed,
            INSTANCE_NAME | PIVOT | BOUNDING_BOX | ROTATION_TRACK | SCALE_TRACK | HIDE_TRACK => object,
            _ => false,
        };
        if !wanted {
            continue;
        }
        if let Some(&first) = seen.get(&child.id) {
            return Err(duplicate(&child, chunk, first));
        }
        seen.insert(child.id, child.offset);
        let mut f = walker.fields(&child);
        match child.id {
            NODE_ID => node.id = f.u16("the node id")?,
            NODE_HEADER => {
                node.object_name = f.cstring("the node's object name")?;
                node.flags1 = f.u16("the node's first flags")?;
                node.flags2 = f.u16("the node's second flags")?;
                node.parent_id = f.u16("the node's parent id")?;
            }
            INSTANCE_NAME => node.instance_name = Some(f.cstring("the instance name")?),
            PIVOT => node.pivot = f.vec3("the pivot")?,
            BOUNDING_BOX => {
                let low = f.vec3("the bounding box's smallest corner")?;
                let high = f.vec3("the bounding box's largest corner")?;
                node.bounding_box = Some((low, high));
            }
            POSITION_TRACK => node.position = read_position(walker, &child)?,
            ROTATION_TRACK => node.rotation = read_rotation(walker, &child)?,
            SCALE_TRACK => node.scale = read_scale(walker, &child)?,
            _ => node.hide = read_hide(walker, &child)?,
        }
    }
    if !seen.contains_key(&NODE_HEADER) {
        return Err(ReadError::MissingNodeHeader {
            offset: chunk.offset,
            id: chunk.id,
        });
    }
    Ok(node)
}

/// Sets every node's parent index and returns the nodes breadth-first
/// from the roots; refuses repeated ids, missing parents and cycles.
fn link(nodes: &mut [Node]) -> Result<Vec<usize>, ReadError> {
    let mut by_id: BTreeMap<u16, usize> = BTreeMap::new();
    for (index, node) in nodes.iter().enumerate() {
        if let Some(&first) = by_id.get(&node.id) {
            return Err(ReadError::DuplicateNodeId {
                offset: node.offset,
                node_id: node.id,
                first_offset: nodes.get(first).map_or(0, |n| n.offset),
            });
        }
        by_id.insert(node.id, index);
    }
    for node in nodes.iter_mut() {
        node.parent = match node.parent_id {
            NO_PARENT => None,
            parent_id => Some(*by_id.get(&parent_id).ok_or(ReadError::MissingParent {
                offset: node.offset,
                node_id: node.id,
                parent_id,
            })?),
        };
    }
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
    let mut queue = VecDeque::new();
    for (index, node) in nodes.iter().enumerate() {
        match node.parent.and_then(|p| children.get_mut(p)) {
            Some(siblings) => siblings.push(index),
            None => queue.push_back(index),
        }
    }
    let mut order = Vec::with_capacity(nodes.len());
    while let Some(index) = queue.pop_front() {
        order.push(index);
        if let Some(kids) = children.get(index) {
            queue.extend(kids.iter().copied());
        }
    }
    if order.len() < nodes.len() {
        return Err(first_cycle(nodes));
    }
    Ok(order)
}

/// The first parent loop met walking up from each node in file order,
/// reported at its node that comes first in the file. Only called when
/// some nodes are not reached from a root, so a loop exists.
fn first_cycle(nodes: &[Node]) -> ReadError {
    // 0: not visited, 1: on the current walk, 2: done.
    let mut state = vec![0u8; nodes.len()];
    for start in 0..nodes.len() {
        let mut path = Vec::new();
        let mut at = Some(start);
        while let Some(i) = at {
            match state.get(i).copied() {
                Some(0) => {
                    state[i] = 1;
                    path.push(i);
                    at = nodes.get(i).and_then(|n| n.parent);
                }
                Some(1) => {
                    let from = path.iter().position(|&p| p == i).unwrap_or(0);
                    let first = path.get(from..).and_then(|c| c.iter().min()).copied();
                    let node = first.and_then(|f| nodes.get(f));
                    return ReadError::ParentCycle {
                        offset: node.map_or(0, |n| n.offset),
                        node_id: node.map_or(0, |n| n.id),
                    };
                }
                _ => break,
            }
        }
        for i in path {
            state[i] = 2;
        }
    }
    ReadError::ParentCycle {
        offset: nodes.first().map_or(0, |n| n.offset),
        node_id: nodes.first().map_or(0, |n| n.id),
    }
}
