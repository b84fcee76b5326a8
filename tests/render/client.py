"""What a Minecraft 1.20.1 client builds: box-UV cubes, their vertex
orders, a `player_head` in an item display, and a `PlayerModel`'s parts.

Everything here is written from our reading of the 1.20.1 client (Mojang's
names) and of Sodium's entity renderer; no code of theirs is copied.

* `ModelPart.Cube`: a box of `w x h x d` model units (1/16 block) at
  `texOffs (u, v)`, grown by a deformation, six quads. Quad order and each
  quad's corners and UVs are in `cube_quads`; a quad's corners always carry
  the UVs (u2, v1), (u1, v1), (u1, v2), (u2, v2) of its face rectangle, and
  the up face's v runs the other way. Vanilla writes the quads down, up,
  west, north, east, south. Sodium 0.5.0-0.5.3 (`ModelCuboid`'s quad array)
  write east, west, down, up, north, south; Sodium 0.5.6+ (`EntityRenderer`)
  down, up, north, south, east, west. Each keeps vanilla's corner order and
  UVs within a quad, and `QUADS` are drawn as triangles (0, 1, 2), (2, 3, 0).
* `ModelPart.translateAndRotate`: translate by the part's offset / 16, then
  rotate by `rotationZYX(zRot, yRot, xRot)`.
* `SkullModel` (`createHumanoidHeadModel`): head `addBox(-4, -8, -4, 8, 8,
  8)` at texOffs (0, 0), and its child hat, the same box grown 0.25 at
  (32, 0); a 64x64 texture. `SkullBlockRenderer.renderSkull(null, 180, 0,
  ...)` translates (0.5, 0, 0.5), scales (-1, -1, 1) and sets the head's
  yRot to 180 degrees.
* `ItemRenderer.render` of a `builtin/entity` model: the display context's
  `ItemTransform` (translate by translation/16, `rotationXYZ` in degrees,
  scale), then translate (-0.5, -0.5, -0.5), then the skull.
* `DisplayRenderer`: the entity's orientation (identity here: yaw 0, pitch
  0, fixed billboard), then the display's transformation matrix; the item
  display turns its item half a turn about Y before rendering it.
* `PlayerModel` (`createMesh`, with the numbers of our `skin_uv.rs`): see
  `PARTS`. The slim arms are 3 wide; `createMesh` puts them 0.5 lower, but
  `HumanoidModel.setupAnim` sets both arms' y to 2 for a standing player.
"""

import math

import numpy as np

# (u, v, x, y, z, w, h, d, grow): texOffs, box origin and size, deformation.
# part: (pivot, classic base, classic overlay, slim base, slim overlay)
PARTS = {
    "head": ((0, 0, 0), (0, 0, -4, -8, -4, 8, 8, 8), (32, 0), None, None),
    "body": ((0, 0, 0), (16, 16, -4, 0, -2, 8, 12, 4), (16, 32), None, None),
    "right_arm": ((-5, 2, 0), (40, 16, -3, -2, -2, 4, 12, 4), (40, 32),
                  ((-5, 2.5, 0), (40, 16, -2, -2, -2, 3, 12, 4)), (40, 32)),
    "left_arm": ((5, 2, 0), (32, 48, -1, -2, -2, 4, 12, 4), (48, 48),
                 ((5, 2.5, 0), (32, 48, -1, -2, -2, 3, 12, 4)), (48, 48)),
    "right_leg": ((-1.9, 12, 0), (0, 16, -2, 0, -2, 4, 12, 4), (0, 32), None, None),
    "left_leg": ((1.9, 12, 0), (16, 48, -2, 0, -2, 4, 12, 4), (0, 48), None, None),
}

# The skull's overlay (hat) is grown 0.25 each way.
SKULL_HAT_GROW = 0.25

VERTEX_ORDERS = {
    # Quads by name, in the order each client writes them.
    "vanilla": ("down", "up", "west", "north", "east", "south"),
    "sodium-0.5.0": ("east", "west", "down", "up", "north", "south"),
    "sodium-0.5.6": ("down", "up", "north", "south", "east", "west"),
}


def cube_quads(u, v, box, grow, rows=None):
    """The six quads of a box-UV cube: {name: (corners, uvs, direction)}.

    `box` is (x, y, z, w, h, d) in model units (y down), `grow` a scalar
    or a per-axis triple. `rows` (start, end), when given, cuts the side
    faces' texture to those rows of the part while the caps stay whole (a
    slice's own faces; the geometry is the box as given)."""
    x, y, z, w, h, d = box
    gx, gy, gz = grow if isinstance(grow, tuple) else (grow, grow, grow)
    x1, y1, z1 = x - gx, y - gy, z - gz
    x2, y2, z2 = x + w + gx, y + h + gy, z + d + gz
    c = [(x1, y1, z1), (x2, y1, z1), (x2, y2, z1), (x1, y2, z1),
         (x1, y1, z2), (x2, y1, z2), (x2, y2, z2), (x1, y2, z2)]
    tu = [u, u + d, u + d + w, u + d + w + w, u + d + w + d, u + d + w + d + w]
    side_v1, side_v2 = v + d, v + d + h
    if rows is not None:
        side_v1, side_v2 = v + d + rows[0], v + d + rows[1]
    faces = {
        "down": ((5, 4, 0, 1), (tu[1], v, tu[2], v + d), (0, -1, 0)),
        "up": ((2, 3, 7, 6), (tu[2], v + d, tu[3], v), (0, 1, 0)),
        "west": ((0, 4, 7, 3), (tu[0], side_v1, tu[1], side_v2), (-1, 0, 0)),
        "north": ((1, 0, 3, 2), (tu[1], side_v1, tu[2], side_v2), (0, 0, -1)),
        "east": ((5, 1, 2, 6), (tu[2], side_v1, tu[4], side_v2), (1, 0, 0)),
        "south": ((4, 5, 6, 7), (tu[4], side_v1, tu[5], side_v2), (0, 0, 1)),
    }
    out = {}
    for name, (corners, (u1, v1, u2, v2), direction) in faces.items():
        uvs = ((u2, v1), (u1, v1), (u1, v2), (u2, v2))
        out[name] = ([c[i] for i in corners], uvs, direction)
    return out


def translate(x, y, z):
    m = np.eye(4)
    m[:3, 3] = (x, y, z)
    return m


def scale(x, y, z):
    return np.diag((x, y, z, 1.0))


def rot_x(a):
    c, s = math.cos(a), math.sin(a)
    return np.array([[1, 0, 0, 0], [0, c, -s, 0], [0, s, c, 0], [0, 0, 0, 1.0]])


def rot_y(a):
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, 0, s, 0], [0, 1, 0, 0], [-s, 0, c, 0], [0, 0, 0, 1.0]])


def rot_z(a):
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0, 0], [s, c, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1.0]])


def part_pose(offset, x_rot=0.0, y_rot=0.0, z_rot=0.0):
    """`ModelPart.translateAndRotate`: offset / 16, then ZYX rotation."""
    ox, oy, oz = offset
    return translate(ox / 16, oy / 16, oz / 16) @ rot_z(z_rot) @ rot_y(y_rot) @ rot_x(x_rot)


def item_transform(translation, rotation, scale_xyz):
    """`ItemTransform.apply` for the right hand: translation is in 1/16."""
    tx, ty, tz = (max(-5.0, min(5.0, t / 16)) for t in translation)
    rx, ry, rz = (math.radians(a) for a in rotation)
    return translate(tx, ty, tz) @ rot_x(rx) @ rot_y(ry) @ rot_z(rz) @ scale(*scale_xyz)


def skull_chain(model_transform):
    """From the skull's model units to the display's frame: the item
    display's half turn, the item model's display transform, the item
    renderer's centring, the skull renderer, the head's 180 degree yRot."""
    return (rot_y(math.pi) @ item_transform(*model_transform) @ translate(-0.5, -0.5, -0.5)
            @ translate(0.5, 0.0, 0.5) @ scale(-1, -1, 1) @ part_pose((0, 0, 0), y_rot=math.pi)
            @ scale(1 / 16, 1 / 16, 1 / 16))


SKULL_BOX = (-4, -8, -4, 8, 8, 8)


def skull_cubes():
    """The skull's two cubes: (texOffs, box, grow), base then hat."""
    return [((0, 0), SKULL_BOX, 0.0), ((32, 0), SKULL_BOX, SKULL_HAT_GROW)]


def part_layout(part, slim):
    """(pivot, (u, v, box), overlay texOffs) of a PlayerModel part."""
    pivot, base, overlay, slim_base, slim_overlay = PARTS[part]
    if slim and slim_base is not None:
        pivot, base = slim_base
        overlay = slim_overlay
    u, v, *box = base
    return pivot, (u, v, tuple(box)), overlay


def box_map(src, dst):
    """The affine map (model units) that takes box `src` onto box `dst`
    (x, y, z, w, h, d), axis by axis."""
    sx, sy, sz = (dst[3] / src[3], dst[4] / src[4], dst[5] / src[5])
    return translate(dst[0], dst[1], dst[2]) @ scale(sx, sy, sz) @ translate(-src[0], -src[1], -src[2])


def slice_box(part, slim, rows):
    """A slice's box in its part's model units: the part's box cut to
    `rows` of its height."""
    _, (_, _, box), _ = part_layout(part, slim)
    x, y, z, w, h, d = box
    return (x, y + rows[0], z, w, rows[1] - rows[0], d)


def reference_slice(part, slim, rows):
    """A PlayerModel part cut to `rows` (caps whole, as a slice shows them)
    in its own model units: [(texOffs, box, grow, rows)], base then
    overlay. The overlay grows as the skull's hat grows under the same
    box map (0.25 skull units scaled per axis), which is where a twin's
    overlay lies."""
    _, (u, v, box), (ou, ov) = part_layout(part, slim)
    cut = slice_box(part, slim, rows)
    grow = tuple(SKULL_HAT_GROW * cut[3 + i] / SKULL_BOX[3 + i] for i in range(3))
    return [((u, v), cut, 0.0, rows), ((ou, ov), cut, grow, rows)]


def twin_display_matrix(part, slim, rows, part_matrix):
    """The display transformation the server sends so that a skull lands on
    the classic slice box: `part_matrix` (part model units, y down, to the
    display's frame in blocks) after the box map, undoing the skull chain
    of a classic slice model (half turn only). A slim slice's own model
    then narrows it."""
    classic = skull_chain(((0, 0, 0), (0, 180, 0), (1, 1, 1)))
    return part_matrix @ box_map(SKULL_BOX, slice_box(part, False, rows)) @ np.linalg.inv(classic)


def player_part_matrix(part, pose):
    """A PlayerModel part's model units to the entity frame (blocks, y up):
    the living renderer's flip (scale -1, -1, 1, down 1.501), the part's
    pivot (classic: `HumanoidModel.setupAnim` puts a standing player's slim
    arms at y 2 too) and `pose` (x, y, z rotations in radians), then the
    cube's 1/16."""
    pivot, _, _ = part_layout(part, False)
    root = translate(0, 1.501, 0) @ scale(-1, -1, 1)
    return root @ part_pose(pivot, *pose) @ scale(1 / 16, 1 / 16, 1 / 16)


def emit(cubes, matrix, order, light, overlay=(0, 10)):
    """The vertex stream of `cubes` [(texOffs, box, grow[, rows])] under
    `matrix` (model units to world blocks): rows of Position (3), UV0 (2),
    Normal (3), UV1 (2), UV2 (2), in `order`'s quad order."""
    quads = []
    normal_matrix = np.linalg.inv(matrix[:3, :3]).T
    for cube in cubes:
        (u, v), box, grow = cube[:3]
        rows = cube[3] if len(cube) > 3 else None
        faces = cube_quads(u, v, box, grow, rows)
        for name in VERTEX_ORDERS[order]:
            corners, uvs, direction = faces[name]
            n = normal_matrix @ np.array(direction, dtype=float)
            n /= np.linalg.norm(n)
            quad = []
            for (x, y, z), (tu, tv) in zip(corners, uvs):
                p = matrix @ np.array([x, y, z, 1.0])
                quad.append([*p[:3], tu / 64, tv / 64, *n, *overlay, *light])
            quads.append(quad)
    return np.array([row for quad in quads for row in quad], dtype=np.float64)
