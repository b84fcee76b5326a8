#version 150

// emoted: Minecraft 1.20.1's entity_translucent vertex stage, plus one thing.
// A player-head skull that emoted moved 512*k blocks down (k >= 1) is one
// slice of the player's body: its vertices go back up, and its UVs are
// moved from the skull's two 8x8x8 cubes (base and hat) to slice k's face
// rectangles of the same layer. Everything else draws as vanilla draws it.
// The tables below are generated from emoted's skin table (src/pack/skin_uv.rs).

#moj_import <light.glsl>
#moj_import <fog.glsl>

in vec3 Position;
in vec4 Color;
in vec2 UV0;
in ivec2 UV1;
in ivec2 UV2;
in vec3 Normal;

uniform sampler2D Sampler0;
uniform sampler2D Sampler1;
uniform sampler2D Sampler2;

uniform mat4 ModelViewMat;
uniform mat4 ProjMat;
uniform mat3 IViewRotMat;
uniform int FogShape;

uniform vec3 Light0_Direction;
uniform vec3 Light1_Direction;

out float vertexDistance;
out vec4 vertexColor;
out vec4 lightMapColor;
out vec4 overlayColor;
out vec2 texCoord0;
out vec4 normal;
out float sliceId;

//@SLICE_TABLES@

// The skull's UV0 moved to slice k's rectangle of the same face and layer.
//
// A skull is two cubes, base then hat, of six quads each. In a quad, vanilla
// writes the corners as (u max, v min), (u min, v min), (u min, v max),
// (u max, v max), so gl_VertexID % 4 says which corner this is. The bottom
// face alone runs v the other way. Knowing the corner, the corner's UV gives
// the face's 8x8 tile: column (0-3 base, 4-7 hat) and row (0 caps, 1 sides).
// One case is ambiguous: the two v-min corners of the left side and the two
// v-max corners of the bottom share UVs; vanilla's quad order (bottom is the
// second quad of a cube) settles it.
vec2 sliceUv(vec2 uv, int k) {
    int corner = gl_VertexID % 4;
    int quad = (gl_VertexID / 4) % 6;
    vec2 px = floor(uv * SKIN_SIZE + 0.5);
    float atUMax = (corner == 0 || corner == 3) ? 1.0 : 0.0;
    bool firstRow = corner < 2;
    float tileU = px.x - atUMax * SKULL_FACE;
    int column = int(floor(tileU / SKULL_FACE + 0.5));
    bool bottomColumn = column % 4 == BOTTOM_TILE % 4;
    bool backwards = false;
    if (bottomColumn && !firstRow) {
        backwards = px.y < SKULL_FACE * 0.5;
    } else if (bottomColumn) {
        backwards = quad == 1;
    }
    float atVMax = (firstRow == backwards) ? 1.0 : 0.0;
    float tileV = px.y - atVMax * SKULL_FACE;
    int row = int(floor(tileV / SKULL_FACE + 0.5));
    if (column < 0 || column > 7 || row < 0 || row > 1) {
        return uv;
    }
    int face = FACE_OF_TILE[row * 4 + column % 4];
    if (face < 0) {
        return uv;
    }
    int layer = column / 4;
    vec4 rect = SLICE_RECTS[(k * 2 + layer) * 6 + face];
    return (rect.xy + vec2(atUMax, atVMax) * rect.zw) / SKIN_SIZE;
}

void main() {
    vec3 position = Position;
    vec2 uv = UV0;
    float k = 0.0;
    // Skin slices are drawn in the world (a perspective projection) from a
    // 64x64 skin; the GUI and other textures are left alone.
    if (ProjMat[2][3] != 0.0 && textureSize(Sampler0, 0) == ivec2(SKIN_SIZE)) {
        // IViewRotMat turns the view-rotated, camera-relative Position back
        // into world axes: k is the number of 512-block steps below the camera.
        vec3 world = IViewRotMat * Position;
        float steps = floor(-world.y / SLICE_SPACING + 0.5);
        if (steps >= 1.0 && steps < float(SLICE_COUNT)) {
            k = steps;
            world.y += k * SLICE_SPACING;
            position = transpose(IViewRotMat) * world;
            uv = sliceUv(UV0, int(k));
        }
    }
    sliceId = k;

    gl_Position = ProjMat * ModelViewMat * vec4(position, 1.0);

    vertexDistance = fog_distance(ModelViewMat, IViewRotMat * position, FogShape);
    vertexColor = minecraft_mix_light(Light0_Direction, Light1_Direction, Normal, Color);
    lightMapColor = texelFetch(Sampler2, UV2 / 16, 0);
    overlayColor = texelFetch(Sampler1, UV1, 0);
    texCoord0 = uv;
    normal = ProjMat * ModelViewMat * vec4(Normal, 0.0);
}
