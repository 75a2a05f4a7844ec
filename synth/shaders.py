"""GLSL for the table: one program, a ``mode`` uniform picks the surface's look."""

from __future__ import annotations

VERTEX = """
#version 330
uniform mat4 view_proj;
uniform mat4 model;
in vec3 in_pos;
in vec3 in_normal;
out vec3 v_world;
out vec3 v_normal;
out vec3 v_local;
out vec3 v_local_normal;
void main() {
    vec4 world = model * vec4(in_pos, 1.0);
    v_world = world.xyz;
    v_normal = mat3(transpose(inverse(model))) * in_normal;
    v_local = in_pos;
    v_local_normal = in_normal;
    gl_Position = view_proj * world;
}
"""

# mode 0: flat colour; 1: the board's texture; 2: a piece (rim grooves, top ring, optional
# king stripe); 3: the hand, which also writes white into the second target (the
# occlusion mask) where it is the nearest surface.
FRAGMENT = """
#version 330
uniform int mode;
uniform vec3 colour;
uniform sampler2D board_tex;
uniform vec3 light_dir;
uniform vec3 light_colour;
uniform float ambient;
uniform vec3 eye;
uniform float specular;
uniform float shininess;
uniform float exposure;
uniform int stripe;
uniform vec3 stripe_colour;
in vec3 v_world;
in vec3 v_normal;
in vec3 v_local;
in vec3 v_local_normal;
layout(location = 0) out vec4 f_colour;
layout(location = 1) out vec4 f_mask;
void main() {
    f_mask = vec4(vec3(mode == 3 ? 1.0 : 0.0), 1.0);
    vec3 base = colour;
    if (mode == 1) {
        base = texture(board_tex, vec2(v_local.x + 0.5, 0.5 - v_local.y)).rgb;
    } else if (mode == 2) {
        float r = length(v_local.xy);
        bool side = abs(v_local_normal.z) < 0.5;
        bool top = v_local_normal.z > 0.9;
        if (side && (abs(v_local.z - 0.36) < 0.035 || abs(v_local.z - 0.64) < 0.035)) {
            base *= 0.7;
        }
        if (top && abs(r - 0.58) < 0.03) {
            base *= 0.78;
        }
        if (stripe == 1 && abs(v_local.y) < 0.2 && (side || top)) {
            base = stripe_colour;
        }
    }
    vec3 n = normalize(v_normal);
    vec3 l = normalize(light_dir);
    vec3 v = normalize(eye - v_world);
    float diffuse = max(dot(n, l), 0.0);
    float highlight = pow(max(dot(n, normalize(l + v)), 0.0), shininess) * specular;
    vec3 lit = base * (ambient + (1.0 - ambient) * diffuse) * light_colour;
    lit += highlight * light_colour * (diffuse > 0.0 ? 1.0 : 0.0);
    f_colour = vec4(lit * exposure, 1.0);
}
"""
