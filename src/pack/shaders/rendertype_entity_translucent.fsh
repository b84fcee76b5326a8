#version 150

// emoted: Minecraft 1.20.1's entity_translucent fragment stage. A skin slice
// is drawn as vanilla draws a player (alpha under 0.1 cut, the rest blended),
// except that a triangle whose corners decoded different slice ids (it
// straddles two 512-block windows) is not drawn at all.

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

void main() {
    if (abs(sliceId - floor(sliceId + 0.5)) > 0.001) {
        discard;
    }
    vec4 color = texture(Sampler0, texCoord0) * vertexColor * ColorModulator;
    if (color.a < 0.1) {
        discard;
    }
    color.rgb = mix(overlayColor.rgb, color.rgb, overlayColor.a);
    color *= lightMapColor;
    fragColor = linear_fog(color, vertexDistance, FogStart, FogEnd, FogColor);
}
