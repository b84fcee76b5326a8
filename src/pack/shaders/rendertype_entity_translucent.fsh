#version 150

// emoted: Minecraft 1.20.1's entity_translucent fragment stage, plus the
// skin remap of a twin (a skull the vertex stage decoded as slice k >= 1).
//
// A skull is two box-UV cubes, base at (0, 0) and hat at (32, 0), 8 px each
// way, so every face is one 8x8 tile of the skin's top 64x16 pixels:
// columns 0-3 base, 4-7 hat; row 0 the caps, row 1 the sides. A fragment's
// interpolated UV lies inside its face's tile whatever order the client
// wrote the cube's faces and corners in, so the tile names the layer and the
// face, and the fragment's place in the tile maps linearly onto slice k's
// rectangle of that face and layer (the limbs are box-UV cubes too, so the
// same map holds for every face, the bottom included).
//
// Twins' pixels are all-or-nothing: alpha under 0.5 is cut, the rest is
// drawn opaque, so translucent sorting cannot change them. A triangle whose
// corners decoded different slice ids (it straddles two 512-block windows)
// is not drawn. Everything else is drawn as vanilla draws it.

#moj_import <fog.glsl>

uniform sampler2D Sampler0;

uniform vec4 ColorModulator;
uniform float FogStart;
uniform float FogEnd;
uniform vec4 FogColor;

in float vertexDistance;
in vec4 vertexColor;
in vec4 lightMapColor;
in vec4 overlayColor;
in vec2 texCoord0;
in vec4 normal;
in float sliceId;

out vec4 fragColor;

//@SLICE_TABLES@

// The skull UV `uv` of a fragment, moved to slice k's rectangle of the same
// face and layer.
//
// Interpolation can put a fragment that lies on a face's edge a hair
// outside its tile. Across most tile edges the neighbouring tile is the
// neighbouring face, whose edge texel is what that pixel shows in vanilla
// too; a fragment that lands in one of the two unused corner tiles of a
// layer goes to the nearer face beside it; and the sample is kept inside
// the chosen face's rectangle, so a cut slice never shows rows it does not
// have.
vec2 sliceUv(vec2 uv, int k) {
    vec2 px = uv * SKIN_SIZE;
    vec2 tile = clamp(floor(px / SKULL_FACE), vec2(0.0), vec2(7.0, 1.0));
    vec2 within = clamp(px / SKULL_FACE - tile, 0.0, 1.0);
    int column = int(tile.x);
    int face = FACE_OF_TILE[int(tile.y) * 4 + column % 4];
    if (face < 0) {
        // An unused corner: its neighbours are a cap beside it (the next
        // tile inwards) and a side below it. Take the nearer edge.
        bool left = column % 4 == 0;
        float toCap = left ? 1.0 - within.x : within.x;
        float toSide = 1.0 - within.y;
        if (toCap < toSide) {
            column += left ? 1 : -1;
            within.x = left ? 0.0 : 1.0;
        } else {
            within.y = 0.0;
            tile.y = 1.0;
        }
        face = FACE_OF_TILE[int(tile.y) * 4 + column % 4];
    }
    int layer = column / 4;
    vec4 rect = SLICE_RECTS[(k * 2 + layer) * 6 + face];
    vec2 inRect = clamp(rect.xy + within * rect.zw, rect.xy + EDGE_INSET, rect.xy + rect.zw - EDGE_INSET);
    return inRect / SKIN_SIZE;
}

void main() {
    float k = floor(sliceId + 0.5);
    if (abs(sliceId - k) > 0.001) {
        discard;
    }
    vec4 color;
    if (k >= 1.0) {
        color = textureLod(Sampler0, sliceUv(texCoord0, int(k)), 0.0) * vertexColor * ColorModulator;
        if (color.a < 0.5) {
            discard;
        }
        color.a = 1.0;
    } else {
        color = texture(Sampler0, texCoord0) * vertexColor * ColorModulator;
        if (color.a < 0.1) {
            discard;
        }
    }
    color.rgb = mix(overlayColor.rgb, color.rgb, overlayColor.a);
    color *= lightMapColor;
    fragColor = linear_fog(color, vertexDistance, FogStart, FogEnd, FogColor);
}
