//! Accessors read as `f32` elements, every offset and count checked.
//!
//! The `gltf` crate's own reader trusts the document where a file can
//! break it (`count - 1` with a count of 0, a sparse value it `unwrap`s,
//! a stride it divides by, `debug_assert`s on sizes), so emoted reads the
//! accessors the animation needs itself, from the typed JSON the crate
//! parsed: `componentType` (`FLOAT`, or a normalized integer type decoded
//! as the specification's Appendix on animation samplers says), `type`
//! (`SCALAR`, `VEC3`, `VEC4`), `byteOffset`, the view's `byteStride`, and
//! sparse substitution. A missing `bufferView` means zeros.

use ::gltf::json::accessor::{ComponentType, Type};
use ::gltf::json::validation::Checked;
use ::gltf::json::Root;

use super::buffers::Buffers;
use super::GltfError;

/// The most elements one accessor may have (4 Mi: far beyond any clip's
/// keys, and it bounds what a zero-filled accessor without a buffer view,
/// or a tightly strided byte accessor, can make emoted allocate).
pub const MAX_ELEMENTS: u64 = 1 << 22;

/// An accessor's elements, each `width` floats, flattened.
#[derive(Clone, Debug, PartialEq)]
pub struct Floats {
    /// The components of one element (1 for `SCALAR`, 3 for `VEC3`…).
    pub width: usize,
    /// `count × width` values.
    pub values: Vec<f32>,
}

impl Floats {
    /// How many elements there are.
    pub fn count(&self) -> usize {
        self.values.len() / self.width.max(1)
    }

    /// Element `i`, `width` floats (empty past the end).
    pub fn element(&self, i: usize) -> &[f32] {
        let start = i.saturating_mul(self.width);
        self.values
            .get(start..start.saturating_add(self.width))
            .unwrap_or(&[])
    }
}

/// The bytes one component of `kind` takes.
fn component_bytes(kind: ComponentType) -> usize {
    match kind {
        ComponentType::I8 | ComponentType::U8 => 1,
        ComponentType::I16 | ComponentType::U16 => 2,
        ComponentType::U32 | ComponentType::F32 => 4,
    }
}

/// The component at the start of `bytes` as a float: floats as they are,
/// normalized integers as `c / max` (signed ones clamped at −1).
fn component(kind: ComponentType, bytes: &[u8]) -> f32 {
    let b = |i: usize| bytes.get(i).copied().unwrap_or(0);
    match kind {
        ComponentType::F32 => f32::from_le_bytes([b(0), b(1), b(2), b(3)]),
        ComponentType::I8 => (f32::from(b(0) as i8) / 127.0).max(-1.0),
        ComponentType::U8 => f32::from(b(0)) / 255.0,
        ComponentType::I16 => (f32::from(i16::from_le_bytes([b(0), b(1)])) / 32767.0).max(-1.0),
        ComponentType::U16 => f32::from(u16::from_le_bytes([b(0), b(1)])) / 65535.0,
        ComponentType::U32 => u32::from_le_bytes([b(0), b(1), b(2), b(3)]) as f32,
    }
}

/// The slice `[start, start + length)` of buffer view `view`'s bytes, or
/// the rule it breaks (at `pointer`).
fn view_bytes<'b>(
    root: &Root,
    buffers: &'b Buffers<'_>,
    view: usize,
    pointer: &str,
) -> Result<(&'b [u8], Option<usize>), GltfError> {
    let invalid = |rule: String| GltfError::Invalid {
        pointer: pointer.to_owned(),
        rule,
    };
    let v = root.buffer_views.get(view).ok_or_else(|| {
        invalid(format!(
            "there is no buffer view {view} (the file has {})",
            root.buffer_views.len()
        ))
    })?;
    let buffer = v.buffer.value();
    let data = buffers.get(buffer).ok_or_else(|| {
        invalid(format!(
            "buffer view {view} names buffer {buffer}, which was not read"
        ))
    })?;
    let start = v.byte_offset.map_or(0, |o| o.0);
    let end = start.checked_add(v.byte_length.0);
    let bytes = end
        .and_then(|end| data.get(usize::try_from(start).ok()?..usize::try_from(end).ok()?))
        .ok_or_else(|| GltfError::Invalid {
            pointer: format!("/bufferViews/{view}"),
            rule: format!(
                "the view covers bytes {start} to {} of buffer {buffer}, which has {} bytes",
                end.map_or("beyond".to_owned(), |e| e.to_string()),
                data.len()
            ),
        })?;
    Ok((bytes, v.byte_stride.map(|s| s.0)))
}

/// Reads accessor `index` as floats. `allowed` lists the element types
/// the caller accepts, and `what` says what the accessor is for.
pub fn read_floats(
    root: &Root,
    buffers: &Buffers<'_>,
    index: usize,
    allowed: &[Type],
    what: &str,
) -> Result<Floats, GltfError> {
    let pointer = format!("/accessors/{index}");
    let invalid = |field: &str, rule: String| GltfError::Invalid {
        pointer: format!("{pointer}{field}"),
        rule,
    };
    let accessor = root.accessors.get(index).ok_or_else(|| {
        invalid(
            "",
            format!(
                "there is no accessor {index} (the file has {})",
                root.accessors.len()
            ),
        )
    })?;
    let (Checked::Valid(kind), Checked::Valid(shape)) = (&accessor.component_type, &accessor.type_)
    else {
        return Err(invalid(
            "",
            "its componentType or type is not one glTF defines".to_owned(),
        ));
    };
    let kind = kind.0;
    let shape = *shape;
    if !allowed.contains(&shape) {
        return Err(invalid(
            "/type",
            format!("{what} needs elements of type {allowed:?}, not {shape:?}"),
        ));
    }
    let normalized_int = accessor.normalized && kind != ComponentType::U32;
    if kind != ComponentType::F32 && !normalized_int {
        return Err(invalid(
            "/componentType",
            format!(
                "{what} needs FLOAT components or normalized 8- or 16-bit integers, not {kind:?}"
            ),
        ));
    }
    let width = shape.multiplicity();
    let component = component_bytes(kind);
    let element = width * component;
    let count = accessor.count.0;
    if count == 0 || count > MAX_ELEMENTS {
        return Err(invalid(
            "/count",
            format!("an accessor has 1 to {MAX_ELEMENTS} elements, not {count}"),
        ));
    }

    let mut values = match accessor.buffer_view {
        None => vec![0.0; count as usize * width],
        Some(view) => {
            let view_pointer = format!("{pointer}/bufferView");
            let (bytes, stride) = view_bytes(root, buffers, view.value(), &view_pointer)?;
            let stride = stride.unwrap_or(element);
            if stride < element {
                return Err(invalid(
                    "/bufferView",
                    format!(
                        "the view's byteStride {stride} is smaller than one {element}-byte element"
                    ),
                ));
            }
            let offset = accessor.byte_offset.map_or(0, |o| o.0);
            let end = (count - 1)
                .checked_mul(stride as u64)
                .and_then(|n| n.checked_add(offset))
                .and_then(|n| n.checked_add(element as u64));
            if end.is_none_or(|e| e > bytes.len() as u64) {
                return Err(invalid(
                    "/count",
                    format!(
                        "{count} elements of {element} bytes every {stride} from byte {offset} do not fit the {}-byte buffer view",
                        bytes.len()
                    ),
                ));
            }
            let mut values = Vec::with_capacity(count as usize * width);
            for i in 0..count as usize {
                let at = offset as usize + i * stride;
                for c in 0..width {
                    let slot = at + c * component;
                    values.push(component_of(kind, bytes, slot));
                }
            }
            values
        }
    };
    if let Some(sparse) = &accessor.sparse {
        apply_sparse(
            root,
            buffers,
            sparse,
            &pointer,
            kind,
            width,
            count,
            &mut values,
        )?;
    }
    Ok(Floats { width, values })
}

/// The component of `kind` at `at` in `bytes` (0 past the end, which the
/// caller has ruled out).
fn component_of(kind: ComponentType, bytes: &[u8], at: usize) -> f32 {
    component(kind, bytes.get(at..).unwrap_or(&[]))
}

/// Replaces the elements a sparse accessor lists.
#[allow(clippy::too_many_arguments)]
fn apply_sparse(
    root: &Root,
    buffers: &Buffers<'_>,
    sparse: &::gltf::json::accessor::sparse::Sparse,
    pointer: &str,
    kind: ComponentType,
    width: usize,
    count: u64,
    values: &mut [f32],
) -> Result<(), GltfError> {
    let sparse_count = sparse.count.0;
    let invalid = |field: &str, rule: String| GltfError::Invalid {
        pointer: format!("{pointer}/sparse{field}"),
        rule,
    };
    if sparse_count == 0 || sparse_count > count {
        return Err(invalid(
            "/count",
            format!("a sparse accessor replaces 1 to {count} elements, not {sparse_count}"),
        ));
    }
    let Checked::Valid(index_kind) = sparse.indices.component_type else {
        return Err(invalid(
            "/indices/componentType",
            "not one glTF defines".to_owned(),
        ));
    };
    let index_kind = index_kind.0;
    let index_bytes = component_bytes(index_kind);
    if !matches!(
        index_kind,
        ComponentType::U8 | ComponentType::U16 | ComponentType::U32
    ) {
        return Err(invalid(
            "/indices/componentType",
            "sparse indices are UNSIGNED_BYTE, UNSIGNED_SHORT or UNSIGNED_INT".to_owned(),
        ));
    }
    let (index_view, _) = view_bytes(
        root,
        buffers,
        sparse.indices.buffer_view.value(),
        &format!("{pointer}/sparse/indices/bufferView"),
    )?;
    let (value_view, _) = view_bytes(
        root,
        buffers,
        sparse.values.buffer_view.value(),
        &format!("{pointer}/sparse/values/bufferView"),
    )?;
    let index_start = sparse.indices.byte_offset.0;
    let value_start = sparse.values.byte_offset.0;
    let element = (width * component_bytes(kind)) as u64;
    let fits = |start: u64, size: u64, view: &[u8]| {
        sparse_count
            .checked_mul(size)
            .and_then(|n| n.checked_add(start))
            .is_some_and(|end| end <= view.len() as u64)
    };
    if !fits(index_start, index_bytes as u64, index_view) {
        return Err(invalid(
            "/indices",
            format!("{sparse_count} indices do not fit their buffer view"),
        ));
    }
    if !fits(value_start, element, value_view) {
        return Err(invalid(
            "/values",
            format!("{sparse_count} values do not fit their buffer view"),
        ));
    }
    let mut previous: Option<u64> = None;
    for i in 0..sparse_count as usize {
        let at = index_start as usize + i * index_bytes;
        let b = |k: usize| index_view.get(at + k).copied().unwrap_or(0);
        let target = match index_kind {
            ComponentType::U8 => u64::from(b(0)),
            ComponentType::U16 => u64::from(u16::from_le_bytes([b(0), b(1)])),
            _ => u64::from(u32::from_le_bytes([b(0), b(1), b(2), b(3)])),
        };
        if target >= count || previous.is_some_and(|p| target <= p) {
            return Err(invalid(
                "/indices",
                format!("sparse index {i} is {target}; indices strictly increase and stay below the count {count}"),
            ));
        }
        previous = Some(target);
        for c in 0..width {
            let from = value_start as usize + i * element as usize + c * component_bytes(kind);
            if let Some(slot) = values.get_mut(target as usize * width + c) {
                *slot = component_of(kind, value_view, from);
            }
        }
    }
    Ok(())
}
