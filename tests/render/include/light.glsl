#version 150

// emoted's render test: the two functions of 1.20.1's light.glsl, written
// from their signatures and the documented behaviour (a 0.4 ambient term
// plus 0.6 for each of the two directional lights, capped at full light).

#define MINECRAFT_LIGHT_POWER   (0.6)
#define MINECRAFT_AMBIENT_LIGHT (0.4)

vec4 minecraft_mix_light(vec3 lightDir0, vec3 lightDir1, vec3 normal, vec4 color) {
    float lit = max(0.0, dot(normalize(lightDir0), normal)) + max(0.0, dot(normalize(lightDir1), normal));
    float light = min(1.0, MINECRAFT_AMBIENT_LIGHT + MINECRAFT_LIGHT_POWER * lit);
    return vec4(color.rgb * light, color.a);
}

vec4 minecraft_sample_lightmap(sampler2D lightMap, ivec2 uv) {
    return texture(lightMap, clamp(vec2(uv) / 256.0, vec2(0.5 / 16.0), vec2(15.5 / 16.0)));
}
