#version 150

// emoted: Minecraft 1.20.1's entity_translucent vertex stage, plus one thing.
// A player-head skull that emoted moved 512*k blocks down (k >= 1) is one
// slice of the player's body, a "twin": its vertices go back up, and the
// fragment stage reads slice k's skin rectangles instead of the skull's.
// Everything that is not a twin draws as vanilla draws it.
//
// A vertex is a twin's when all of these hold (the gate):
// - it is drawn in the world (perspective projection) from a 64x64 skin;
// - it lies 512*k blocks below the camera, k in [1, SLICE_COUNT), and once
//   moved back up it is within TWIN_RADIUS blocks of the camera (the
//   server keeps every twin's view range short enough for that);
// - its light (UV2) is TWIN_UV2, the brightness the server gives every
//   twin (a bystander has it only at the fringe of a torch's light under
//   open sky; see src/pack/shader.rs for what is left).
// The constants below are generated from emoted's skin table
// (src/pack/skin_uv.rs) and slice ids (src/pack/ids.rs).

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

//@SLICE_DEFINES@

void main() {
    vec3 position = Position;
    float k = 0.0;
    if (ProjMat[2][3] != 0.0 && textureSize(Sampler0, 0) == ivec2(SKIN_SIZE) && UV2 == TWIN_UV2) {
        // IViewRotMat turns the view-rotated, camera-relative Position back
        // into world axes: k is the number of 512-block steps below the camera.
        vec3 world = IViewRotMat * Position;
        float steps = floor(-world.y / SLICE_SPACING + 0.5);
        vec3 home = world + vec3(0.0, steps * SLICE_SPACING, 0.0);
        if (steps >= 1.0 && steps < float(SLICE_COUNT) && length(home) <= TWIN_RADIUS) {
            k = steps;
            position = transpose(IViewRotMat) * home;
        }
    }
    sliceId = k;

    gl_Position = ProjMat * ModelViewMat * vec4(position, 1.0);

    vertexDistance = fog_distance(ModelViewMat, IViewRotMat * position, FogShape);
    vertexColor = minecraft_mix_light(Light0_Direction, Light1_Direction, Normal, Color);
    lightMapColor = texelFetch(Sampler2, UV2 / 16, 0);
    overlayColor = texelFetch(Sampler1, UV1, 0);
    // The skull's own UV: the fragment stage finds the face from it.
    texCoord0 = UV0;
    normal = ProjMat * ModelViewMat * vec4(Normal, 0.0);
}
