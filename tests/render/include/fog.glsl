#version 150

// emoted's render test: the three functions of 1.20.1's fog.glsl, written
// from their signatures (linear fog between start and end; the spherical
// or cylindrical distance).

vec4 linear_fog(vec4 inColor, float vertexDistance, float fogStart, float fogEnd, vec4 fogColor) {
    if (vertexDistance <= fogStart) {
        return inColor;
    }
    float amount = vertexDistance < fogEnd ? smoothstep(fogStart, fogEnd, vertexDistance) : 1.0;
    return vec4(mix(inColor.rgb, fogColor.rgb, amount * fogColor.a), inColor.a);
}

float linear_fog_fade(float vertexDistance, float fogStart, float fogEnd) {
    if (vertexDistance <= fogStart) {
        return 1.0;
    } else if (vertexDistance >= fogEnd) {
        return 0.0;
    }
    return smoothstep(fogEnd, fogStart, vertexDistance);
}

float fog_distance(mat4 modelViewMat, vec3 pos, int shape) {
    if (shape == 0) {
        return length((modelViewMat * vec4(pos, 1.0)).xyz);
    }
    float xz = length((modelViewMat * vec4(pos.x, 0.0, pos.z, 1.0)).xz);
    float y = length((modelViewMat * vec4(0.0, pos.y, 0.0, 1.0)).y);
    return max(xz, y);
}
