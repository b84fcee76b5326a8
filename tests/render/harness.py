"""emoted's render test harness: the pack's core shader on Mesa, twins
against a `PlayerModel` drawn by the same stage.

Run by `tests/render_twins.rs` with one argument, a job file (JSON):

    {"pack_dir": the pack's files, unzipped,
     "fragment_shader": optional path of a fragment stage to use instead,
     "slices": [{"k", "part", "slim", "rows": [start, end]}...],
     "custom_model_data_base", "twin_light": [u, v], "views_dir",
     "write_views": bool, "only_slices": bool, "cameras_per_case" (3),
     "seed", "result": where to write the result}

For every slice k of the pack, in each client's vertex order
(`client.VERTEX_ORDERS`), under random part rotations and cameras (the
third square on to a face), it draws the twin as the client does (a skull
in an item display with CustomModelData base + k, moved 512 k blocks down)
and a `PlayerModel`'s part cut to the slice's rows where the twin should
land, each alone, and compares the two images (`mismatch`). The coded skin
gives every texel its own colour, so a pixel shows the same texel in both
or differs. A differing pixel is explained when the colour of either
image there appears within one pixel in the other: a sub-pixel shift of an
edge (a twin's vertices pass through up to 24,000 blocks of float) moves a
boundary by at most a pixel. Unexplained pixels may only be lone corner
pixels (none touching another, at most 1 in 500); a wrong texel, a wrong
face or a misplaced part shows as a patch. Then the five
views of a whole posed body (`check_views`, `views_dir/*.png`) and the gate
(`check_gate`).
"""

import json
import math
import os
import sys
import time

import numpy as np
from PIL import Image

import client
import gl
import skins

SIZE = 160
VIEW_SIZE = 256
BYSTANDER_LIGHT = (0, 240)
# A pixel channel may differ this much and still be the same colour.
CHANNEL_SLACK = 3
VIEWS = {
    "front": ((0.4, 1.3, -3.2), (0.0, 1.0, 0.0)),
    "back": ((-0.4, 1.3, 3.2), (0.0, 1.0, 0.0)),
    # The model faces -Z, its right hand at +X.
    "right": ((3.2, 1.2, -0.3), (0.0, 1.0, 0.0)),
    "left": ((-3.2, 1.2, 0.3), (0.0, 1.0, 0.0)),
    "above": ((1.6, 3.4, -2.0), (0.0, 0.9, 0.0)),
}
VIEW_POSE = {
    "head": (-0.2, 0.35, 0.0),
    "body": (0.0, 0.0, 0.0),
    "right_arm": (-0.6, 0.0, 2.1),
    "left_arm": (0.5, 0.0, -0.15),
    "right_leg": (0.45, 0.0, 0.05),
    "left_leg": (-0.4, 0.0, -0.05),
}


def slice_models(pack_dir, base, slices):
    """k -> the display transform (translation, rotation, scale) of the item
    model that `player_head` with CustomModelData base + k resolves to, read
    from the pack as the client reads it (the last matching override)."""
    def load(path):
        with open(os.path.join(pack_dir, path), encoding="utf-8") as f:
            return json.load(f)

    head = load("assets/minecraft/models/item/player_head.json")
    out = {}
    for item in slices:
        cmd = base + item["k"]
        model_id = None
        for override in head.get("overrides", []):
            if cmd >= override["predicate"].get("custom_model_data", 0):
                model_id = override["model"]
        namespace, path = model_id.split(":", 1)
        model = load(f"assets/{namespace}/models/{path}.json")
        shown = model.get("display", {}).get("thirdperson_righthand", {})
        out[item["k"]] = (tuple(shown.get("translation", (0, 0, 0))),
                          tuple(shown.get("rotation", (0, 0, 0))),
                          tuple(shown.get("scale", (1, 1, 1))))
    return out


def random_rotation(rng):
    """A uniformly random rotation as a 4x4 matrix."""
    q = rng.normal(size=4)
    w, x, y, z = q / np.linalg.norm(q)
    m = np.eye(4)
    m[:3, :3] = [[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                 [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                 [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]]
    return m


def twin_stream(item, model, part_matrix, order, light):
    """A twin's vertices as the client writes them: the skull under the
    display (moved 512 k down) and its slice's item model."""
    rows = tuple(item["rows"])
    display = client.twin_display_matrix(item["part"], item["slim"], rows, part_matrix)
    down = client.translate(0.0, -512.0 * item["k"], 0.0)
    matrix = down @ display @ client.skull_chain(model)
    return client.emit(client.skull_cubes(), matrix, order, light)


def reference_stream(item, part_matrix, light=BYSTANDER_LIGHT):
    """The PlayerModel part cut to the slice's rows, where it should be."""
    cubes = client.reference_slice(item["part"], item["slim"], tuple(item["rows"]))
    return client.emit(cubes, part_matrix, "vanilla", light)


def unexplained(a, b):
    """Pixels where `a` and `b` differ and neither one's colour is found in
    the other's 3x3 neighbourhood (see the module docs): a pixel centre on
    either side of a boundary that moved by a hair, or a sliver of a face or
    texel seen edge-on that one image's pixel centres miss, is explained.
    Returns how many there are and how many of them touch another one."""
    def found_near(x, y):
        hit = np.zeros(x.shape[:2], dtype=bool)
        padded = np.pad(y, ((1, 1), (1, 1), (0, 0)), mode="edge").astype(int)
        h, w = x.shape[:2]
        for dy in range(3):
            for dx in range(3):
                near = padded[dy:dy + h, dx:dx + w]
                hit |= np.all(np.abs(near - x.astype(int)) <= CHANNEL_SLACK, axis=2)
        return hit

    mask = ~found_near(a, b) & ~found_near(b, a)
    padded = np.pad(mask, 1)
    h, w = mask.shape
    neighbours = sum(padded[dy:dy + h, dx:dx + w].astype(int)
                     for dy in range(3) for dx in range(3)) - mask
    return int(np.count_nonzero(mask)), int(np.count_nonzero(mask & (neighbours > 0)))


def mismatch(a, b):
    """The pixels that fail a comparison of `a` with `b`, 0 when they
    match: unexplained pixels may only be single corner pixels where three
    boundaries meet or where vanilla samples exactly on a texture edge (a
    few per picture, none touching another); a wrong texel, face or place
    shows as a patch."""
    count, clustered = unexplained(a, b)
    allowed = max(2, covered(b) // 500)
    return (0 if clustered == 0 and count <= allowed else count), count


def covered(image):
    return int(np.count_nonzero(image[..., 3]))


def check_slices(stage, job, models, rng):
    """Every slice, every vertex order, random cameras and rotations."""
    failures, cases, worst = [], 0, 0
    cameras = job.get("cameras_per_case", 3)
    for item in job["slices"]:
        for order in client.VERTEX_ORDERS:
            for shot in range(cameras):
                entity = np.array([rng.uniform(-50, 50), rng.uniform(60, 70), rng.uniform(-50, 50)])
                pose = tuple(rng.uniform(-math.pi, math.pi, size=3))
                part_matrix = (client.translate(*entity) @ random_rotation(rng)
                               @ client.player_part_matrix(item["part"], pose))
                box = client.slice_box(item["part"], item["slim"], tuple(item["rows"]))
                centre = (part_matrix @ np.array([box[0] + box[3] / 2, box[1] + box[4] / 2,
                                                  box[2] + box[5] / 2, 1.0]))[:3]
                direction = rng.normal(size=3)
                target = centre + rng.uniform(-0.1, 0.1, size=3)
                if shot == 2:
                    # Square on to one of the part's faces, at its centre:
                    # the edges run along pixel rows and columns.
                    axis = np.zeros(3)
                    axis[rng.integers(3)] = rng.choice((-1.0, 1.0))
                    direction, target = part_matrix[:3, :3] @ axis, centre
                eye = centre + direction / np.linalg.norm(direction) * rng.uniform(1.2, 2.5)
                camera = gl.Camera(eye, target, fov_deg=70.0)
                twin = stage.render(camera, [twin_stream(item, models[item["k"]], part_matrix, order,
                                                         job["twin_light"])])
                reference = stage.render(camera, [reference_stream(item, part_matrix)])
                bad, raw = mismatch(twin, reference)
                cases += 1
                worst = max(worst, raw)
                if bad or covered(reference) < 50:
                    failures.append({"k": item["k"], "order": order, "unexplained": bad,
                                     "covered": covered(reference), "twin_covered": covered(twin)})
    return {"cases": cases, "worst_isolated_pixels": worst, "failures": failures}


def body_streams(job, models, order, slim=False):
    """The whole parts of one posed player as twins, and as a PlayerModel."""
    twins, references = [], []
    entity = client.translate(0.0, 0.0, 0.0)
    for item in job["slices"]:
        full = client.part_layout(item["part"], item["slim"])[1][2][4]
        if item["slim"] != (slim and item["part"].endswith("arm")) or tuple(item["rows"]) != (0, full):
            continue
        part_matrix = entity @ client.player_part_matrix(item["part"], VIEW_POSE[item["part"]])
        twins.append(twin_stream(item, models[item["k"]], part_matrix, order, job["twin_light"]))
        references.append(reference_stream(item, part_matrix))
    return np.vstack(twins), np.vstack(references)


def check_views(coded, person, job, models):
    """The five views. With the coded skin, in every vertex order, classic
    and slim: the twins against the PlayerModel, and the twins with their
    quads sorted the wrong way round against the right way (all-or-nothing
    pixels make the order irrelevant: the pictures must be identical). With
    the person skin: the picture, against the committed PNG."""
    views = []
    for name, (eye, target) in VIEWS.items():
        camera = gl.Camera(eye, target, fov_deg=50.0)
        entry = {"name": name, "unexplained": {}, "sorting_changes": 0}
        for order in client.VERTEX_ORDERS:
            for slim in (False, True):
                twins, references = body_streams(job, models, order, slim)
                twin = coded.render(camera, [twins])
                reference = coded.render(camera, [references])
                case = f"{order}{'-slim' if slim else ''}"
                entry["unexplained"][case] = mismatch(twin, reference)[0]
                reversed_sort = coded.render(camera, [twins], back_to_front=False)
                entry["sorting_changes"] += int(np.count_nonzero(np.any(reversed_sort != twin, axis=2)))
        twins, references = body_streams(job, models, "vanilla")
        picture = person.render(camera, [twins], clear=(0.55, 0.7, 0.9, 1.0))
        entry["unexplained"]["person-skin"] = mismatch(
            picture, person.render(camera, [references], clear=(0.55, 0.7, 0.9, 1.0)))[0]
        path = os.path.join(job["views_dir"], f"{name}.png")
        if job.get("write_views"):
            Image.fromarray(picture, "RGBA").save(path, optimize=True)
        entry["path"] = path
        if os.path.exists(path):
            committed = np.asarray(Image.open(path).convert("RGBA"), dtype=int)
            diff = np.abs(committed - picture.astype(int)).max(axis=2)
            entry["mean_difference"] = float(diff.mean())
            entry["pixels_off"] = int(np.count_nonzero(diff > 24))
        views.append(entry)
    return views


def bystander_stream(light):
    """A whole PlayerModel standing 300 blocks below the camera (at the
    origin), wearing a player head (`CustomHeadLayer` draws the skull's two
    cubes 1.1875 times the head's size), lit with `light`."""
    rng = np.random.default_rng(7)
    body = client.translate(0.0, -301.0, 0.0) @ random_rotation(rng)
    parts = []
    for part in client.PARTS:
        matrix = body @ client.player_part_matrix(part, (0.0, 0.0, 0.0))
        full = client.part_layout(part, False)[1][2][4]
        parts.append(reference_stream({"part": part, "slim": False, "rows": (0, full)}, matrix, light))
    worn = body @ client.player_part_matrix("head", (0.0, 0.0, 0.0)) @ client.scale(1.1875, 1.1875, 1.1875)
    parts.append(client.emit(client.skull_cubes(), worn, "vanilla", light))
    return np.vstack(parts)


def check_gate(stage, unmapped, job):
    """Bystanders: a player wearing a player head 300 blocks below the
    camera decodes as k = 1 and lies within the decode radius
    once moved up. Lit by the world it must be drawn where it is, exactly
    as with the remap switched off (`unmapped`: the same program with
    SLICE_COUNT 1); lit as a twin it is moved 512 blocks up and leaves the
    picture: the residual the shader's docs name."""
    camera = gl.Camera((0.0, 0.0, 0.0), (0.0, -300.0, 0.001), fov_deg=1.2)
    world_lit = bystander_stream(BYSTANDER_LIGHT)
    gated = stage.render(camera, [world_lit])
    plain = unmapped.render(camera, [world_lit])
    twin_lit = stage.render(camera, [bystander_stream(tuple(job["twin_light"]))])
    return {
        "bystander_covered": covered(gated),
        "bystander_unexplained_vs_no_remap": unexplained(gated, plain)[0],
        "bystander_twin_lit_covered": covered(twin_lit),
    }


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        job = json.load(f)
    started = time.time()
    core = os.path.join(job["pack_dir"], "assets/minecraft/shaders/core/rendertype_entity_translucent")
    with open(core + ".vsh", encoding="utf-8") as f:
        vertex = f.read()
    with open(job.get("fragment_shader") or core + ".fsh", encoding="utf-8") as f:
        fragment = f.read()
    models = slice_models(job["pack_dir"], job["custom_model_data_base"], job["slices"])
    stage = gl.Stage(vertex, fragment, skins.coded_skin(), SIZE)
    rng = np.random.default_rng(job.get("seed", 1))
    result = {"slices": check_slices(stage, job, models, rng)}
    if job.get("only_slices"):
        result["seconds"] = time.time() - started
        with open(job["result"], "w", encoding="utf-8") as f:
            json.dump(result, f, indent=1)
        return
    coded = gl.Stage(vertex, fragment, skins.coded_skin(), VIEW_SIZE)
    person = gl.Stage(vertex, fragment, skins.person_skin(), VIEW_SIZE)
    result["views"] = check_views(coded, person, job, models)
    count_line = next(line for line in vertex.splitlines() if line.startswith("#define SLICE_COUNT"))
    unmapped = gl.Stage(vertex.replace(count_line, "#define SLICE_COUNT 1"), fragment, skins.coded_skin(), SIZE)
    result["gate"] = check_gate(stage, unmapped, job)
    result["seconds"] = time.time() - started
    with open(job["result"], "w", encoding="utf-8") as f:
        json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
