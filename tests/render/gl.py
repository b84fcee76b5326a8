"""A headless GL stage for the pack's `rendertype_entity_translucent`:
Mesa's llvmpipe through EGL (Debian's `python3-moderngl`), set up the way
1.20.1 draws an entity buffer.

* `#moj_import <name>` lines are replaced by our include stubs
  (`include/*.glsl`), their `#version` lines commented out, as the game's
  preprocessor does.
* Vertices arrive camera-relative and turned by the view rotation
  (`Position`), `ModelViewMat` is the identity and `IViewRotMat` the
  inverse view rotation: what 1.20.1's level renderer hands an entity
  buffer. Quads are drawn as triangles (0, 1, 2), (2, 3, 0), with the
  program's blend (source alpha, one minus source alpha), depth test
  `LEQUAL` and no face culling (`entityTranslucent` draws both sides).
  Translucent buffers are sorted as 1.20.1 sorts them: the index buffer
  lists quads back to front by the distance of their centres from the
  camera (where they are drawn: a twin's 512 k blocks down), while the
  vertices, and so `gl_VertexID`, stay in the order they were written.
* Sampler0 is the skin (64x64, nearest, no mipmaps); the overlay and the
  light map are white, so texels reach the screen lit only by the two
  directional lights, the same for a twin and the model it is compared with.
"""

import math
import os

import moderngl
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))

# 1.20.1's two level lights (`Lighting.setupLevel`), in world axes.
LIGHT0 = np.array([0.2, 1.0, -0.7]) / np.linalg.norm([0.2, 1.0, -0.7])
LIGHT1 = np.array([-0.2, 1.0, 0.7]) / np.linalg.norm([-0.2, 1.0, 0.7])


def resolve_imports(source):
    """`source` with each `#moj_import <x>` replaced by include/x."""
    out = []
    for line in source.splitlines():
        stripped = line.strip()
        if not stripped.startswith("#moj_import"):
            out.append(line)
            continue
        name = stripped[len("#moj_import"):].strip().strip('<>"')
        with open(os.path.join(HERE, "include", name), encoding="utf-8") as f:
            for included in f.read().splitlines():
                out.append("// " + included if included.startswith("#version") else included)
    return "\n".join(out) + "\n"


def view_rotation(yaw_deg, pitch_deg):
    """1.20.1's camera rotation: pitch about X after yaw + 180 about Y."""
    y = math.radians(yaw_deg + 180.0)
    p = math.radians(pitch_deg)
    ry = np.array([[math.cos(y), 0, math.sin(y)], [0, 1, 0], [-math.sin(y), 0, math.cos(y)]])
    rx = np.array([[1, 0, 0], [0, math.cos(p), -math.sin(p)], [0, math.sin(p), math.cos(p)]])
    return rx @ ry


def look_at(eye, target):
    """(yaw, pitch) in degrees, Minecraft's sense, from `eye` to `target`."""
    d = np.asarray(target, float) - np.asarray(eye, float)
    yaw = math.degrees(math.atan2(-d[0], d[2]))
    pitch = -math.degrees(math.asin(d[1] / np.linalg.norm(d)))
    return yaw, pitch


def perspective(fov_deg, aspect, near=0.05, far=1024.0):
    f = 1.0 / math.tan(math.radians(fov_deg) / 2)
    return np.array([
        [f / aspect, 0, 0, 0],
        [0, f, 0, 0],
        [0, 0, (far + near) / (near - far), 2 * far * near / (near - far)],
        [0, 0, -1, 0],
    ])


class Camera:
    """Where the camera is and where it looks."""

    def __init__(self, eye, target, fov_deg=70.0):
        self.eye = np.asarray(eye, dtype=np.float64)
        self.yaw, self.pitch = look_at(eye, target)
        self.fov_deg = fov_deg
        self.rotation = view_rotation(self.yaw, self.pitch)


_CONTEXT = []


def context():
    """The process's one headless context (EGL, llvmpipe)."""
    if not _CONTEXT:
        _CONTEXT.append(moderngl.create_standalone_context(backend="egl", require=330))
    return _CONTEXT[0]


class Stage:
    """One program, one skin, one off-screen target in the shared context."""

    def __init__(self, vertex_source, fragment_source, skin_rgba, size):
        self.ctx = context()
        self.size = size
        self.program = self.ctx.program(
            vertex_shader=resolve_imports(vertex_source),
            fragment_shader=resolve_imports(fragment_source),
        )
        self.skin = self.ctx.texture((64, 64), 4, np.ascontiguousarray(skin_rgba, dtype=np.uint8).tobytes())
        self.skin.filter = (moderngl.NEAREST, moderngl.NEAREST)
        white = np.full((16, 16, 4), 255, dtype=np.uint8).tobytes()
        self.overlay = self.ctx.texture((16, 16), 4, white)
        self.lightmap = self.ctx.texture((16, 16), 4, white)
        for texture in (self.overlay, self.lightmap):
            texture.filter = (moderngl.NEAREST, moderngl.NEAREST)
        self.fbo = self.ctx.simple_framebuffer((size, size), components=4)
        self.fbo.use()

    def _set(self, name, value):
        if name in self.program:
            uniform = self.program[name]
            if isinstance(value, np.ndarray) and value.ndim == 2:
                # GLSL matrices are column-major.
                uniform.write(value.T.astype("f4").tobytes())
            else:
                uniform.value = value

    def render(self, camera, streams, clear=(0.0, 0.0, 0.0, 0.0), back_to_front=True):
        """Draws each vertex stream (rows from `client.emit`) in turn and
        returns the image, top row first, as uint8 RGBA. `back_to_front`
        False sorts the quads the wrong way round."""
        ctx = self.ctx
        self.fbo.use()
        self.fbo.clear(*clear, depth=1.0)
        ctx.enable(moderngl.DEPTH_TEST | moderngl.BLEND)
        ctx.disable(moderngl.CULL_FACE)
        ctx.depth_func = "<="
        ctx.blend_func = moderngl.SRC_ALPHA, moderngl.ONE_MINUS_SRC_ALPHA
        rot = camera.rotation
        self._set("ProjMat", perspective(camera.fov_deg, 1.0))
        self._set("ModelViewMat", np.eye(4))
        self._set("IViewRotMat", rot.T)
        self._set("ColorModulator", (1.0, 1.0, 1.0, 1.0))
        self._set("Light0_Direction", tuple(rot @ LIGHT0))
        self._set("Light1_Direction", tuple(rot @ LIGHT1))
        self._set("FogStart", 1.0e4)
        self._set("FogEnd", 2.0e4)
        self._set("FogColor", (0.0, 0.0, 0.0, 0.0))
        self._set("FogShape", 0)
        for unit, (name, texture) in enumerate(
                (("Sampler0", self.skin), ("Sampler1", self.overlay), ("Sampler2", self.lightmap))):
            texture.use(unit)
            self._set(name, unit)
        for rows in streams:
            if len(rows) == 0:
                continue
            self._draw(rows, rot, camera.eye, back_to_front)
        data = self.fbo.read(components=4)
        image = np.frombuffer(data, dtype=np.uint8).reshape(self.size, self.size, 4)
        return image[::-1].copy()

    def _draw(self, rows, rot, eye, back_to_front):
        position = (rows[:, 0:3] - eye) @ rot.T
        normal = rows[:, 5:8] @ rot.T
        count = len(rows)
        floats = np.hstack([position, np.ones((count, 4)), rows[:, 3:5], normal]).astype("f4")
        ints = rows[:, 8:12].astype("i4")
        centres = position.reshape(-1, 4, 3).mean(axis=1)
        distance = np.linalg.norm(centres, axis=1)
        order = np.argsort(-distance if back_to_front else distance, kind="stable")
        quads = (4 * order).astype("i4")[:, None]
        indices = (quads + np.array([0, 1, 2, 2, 3, 0], dtype="i4")).astype("i4")
        vbo_f = self.ctx.buffer(floats.tobytes())
        vbo_i = self.ctx.buffer(ints.tobytes())
        ibo = self.ctx.buffer(indices.tobytes())
        vao = self.ctx.vertex_array(
            self.program,
            [(vbo_f, "3f 4f 2f 3f", "Position", "Color", "UV0", "Normal"),
             (vbo_i, "2i 2i", "UV1", "UV2")],
            index_buffer=ibo,
            skip_errors=True,
        )
        vao.render(moderngl.TRIANGLES)
        for resource in (vao, vbo_f, vbo_i, ibo):
            resource.release()
