"""GLSL for the table: a ``mode`` uniform picks the surface's look.

Single meshes (board, hand parts) take their placement and colour from uniforms; the
discs are drawn in one instanced call (llvmpipe spends more on a draw call than on a
disc), each instance carrying its place, turn, size, colour and stripe.
"""

from __future__ import annotations

# What both table vertex shaders hand the fragment shader.
_VARYINGS = """
out vec3 v_world;
out vec3 v_normal;
out vec3 v_local;
out vec3 v_local_normal;
out vec3 v_colour;
flat out int v_stripe;
"""

VERTEX = (
    """
#version 330
uniform mat4 view_proj;
uniform mat4 model;
uniform mat3 normal_matrix;  // inverse transpose of the model's 3x3, from the CPU
uniform vec3 colour;
in vec3 in_pos;
in vec3 in_normal;
"""
    + _VARYINGS
    + """
void main() {
    vec4 world = model * vec4(in_pos, 1.0);
    v_world = world.xyz;
    v_normal = normal_matrix * in_normal;
    v_local = in_pos;
    v_local_normal = in_normal;
    v_colour = colour;
    v_stripe = 0;
    gl_Position = view_proj * world;
}
"""
)

# A unit disc scaled to (radius, radius, height), turned about z, set at its bottom centre.
_PLACE_DISC = """
vec3 place(vec3 p) {
    float c = cos(i_place.w), s = sin(i_place.w);
    vec3 q = p * vec3(i_size.x, i_size.x, i_size.y);
    return vec3(c * q.x - s * q.y, s * q.x + c * q.y, q.z) + i_place.xyz;
}
"""

DISC_VERTEX = (
    """
#version 330
uniform mat4 view_proj;
in vec3 in_pos;
in vec3 in_normal;
in vec4 i_place;
in vec2 i_size;
in vec3 i_colour;
in float i_stripe;
"""
    + _VARYINGS
    + """
"""
    + _PLACE_DISC
    + """
void main() {
    v_world = place(in_pos);
    float c = cos(i_place.w), s = sin(i_place.w);
    vec3 n = in_normal / vec3(i_size.x, i_size.x, i_size.y);
    v_normal = vec3(c * n.x - s * n.y, s * n.x + c * n.y, n.z);
    v_local = in_pos;
    v_local_normal = in_normal;
    v_colour = i_colour;
    v_stripe = int(i_stripe);
    gl_Position = view_proj * vec4(v_world, 1.0);
}
"""
)

DISC_SHADOW_VERTEX = (
    """
#version 330
uniform mat4 light_view_proj;
in vec3 in_pos;
in vec4 i_place;
in vec2 i_size;
"""
    + _PLACE_DISC
    + """
void main() {
    gl_Position = light_view_proj * vec4(place(in_pos), 1.0);
}
"""
)

# mode 0: flat colour; 1: the board's texture; 2: a piece (rim grooves, top ring, optional
# king stripe or crown sticker: ``v_stripe`` 1 or 2); 3: the hand; 5: paper (a scoresheet's
# texture; 4, the table, has its own program below). ``occluder`` goes into the second
# target (the occlusion mask) where that surface is the nearest: hands and clutter, not
# the board or the pieces.
# Besides the directional light, a lamp (a point light) adds a hot spot and glare.
FRAGMENT = """
#version 330
uniform int mode;
uniform float occluder;
uniform sampler2D board_tex;
uniform sampler2D paper_tex;
uniform vec3 light_dir;
uniform vec3 light_colour;
uniform float ambient;
uniform vec3 eye;
uniform float specular;
uniform float shininess;
uniform float exposure;
uniform vec3 stripe_colour;
uniform vec3 lamp_pos;
uniform float lamp_power;
uniform float sticker_radius;
uniform float sticker_ink;
uniform mat4 light_view_proj;
uniform sampler2DShadow shadow_map;
in vec3 v_world;
in vec3 v_normal;
in vec3 v_local;
in vec3 v_local_normal;
in vec3 v_colour;
flat in int v_stripe;
layout(location = 0) out vec4 f_colour;
layout(location = 1) out vec4 f_mask;
void main() {
    f_mask = vec4(vec3(occluder), 1.0);
    vec3 base = v_colour;
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
        if (v_stripe == 1 && abs(v_local.y) < 0.2 && (side || top)) {
            base = stripe_colour;
        }
        if (v_stripe == 2 && top && r < sticker_radius) {
            // A crowned king: a light sticker with a crown (a band and three points), turned
            // with the disc, inked from a dark shade of the piece colour to a light tint of
            // its hue.
            vec2 q = v_local.xy / sticker_radius;
            bool band = abs(q.x) < 0.55 && q.y > -0.45 && q.y < -0.2;
            float tip = 0.5 - q.y;
            bool points = q.y >= -0.2 && q.y < 0.5 && (abs(q.x) < 0.22 * tip / 0.7
                || abs(abs(q.x) - 0.45) < 0.18 * tip / 0.7);
            vec3 hue = v_colour / max(max(v_colour.r, v_colour.g), max(v_colour.b, 0.05));
            vec3 ink = mix(v_colour * 0.45 + 0.05, mix(hue, vec3(1.0), 0.25) * 0.8, sticker_ink);
            base = (band || points) ? ink : vec3(0.9, 0.89, 0.85);
        }
    } else if (mode == 5) {
        base = texture(paper_tex, vec2(v_local.x + 0.5, 0.5 - v_local.y)).rgb;
    }
    vec3 n = normalize(v_normal);
    vec3 l = normalize(light_dir);
    vec3 v = normalize(eye - v_world);
    float diffuse = max(dot(n, l), 0.0);
    // Shadow map lookup; the bias grows on surfaces turned from the light (no acne).
    vec4 light_clip = light_view_proj * vec4(v_world, 1.0);
    vec3 p = light_clip.xyz / light_clip.w * 0.5 + 0.5;
    float bias = max(0.0015 * (1.0 - diffuse), 0.0003);
    float sun = 1.0;
    if (p.x > 0.0 && p.x < 1.0 && p.y > 0.0 && p.y < 1.0 && p.z < 1.0) {
        sun = texture(shadow_map, vec3(p.xy, p.z - bias));
    }
    float highlight = pow(max(dot(n, normalize(l + v)), 0.0), shininess) * specular;
    vec3 lit = base * (ambient + (1.0 - ambient) * diffuse * sun) * light_colour;
    lit += highlight * sun * light_colour * (diffuse > 0.0 ? 1.0 : 0.0);
    if (lamp_power > 0.0) {
        // Falls off with the square of the distance, 1 straight under the lamp. The
        // highlight is the lamp's mirror image: small and bright on a glossy top (ten
        // times the sun's exponent), so a black piece away from it stays black.
        vec3 to_lamp = lamp_pos - v_world;
        float fall = lamp_pos.z * lamp_pos.z / dot(to_lamp, to_lamp);
        vec3 ll = normalize(to_lamp);
        float facing = max(dot(n, ll), 0.0);
        float glint = pow(max(dot(n, normalize(ll + v)), 0.0), shininess * 10.0);
        lit += lamp_power * fall * light_colour
            * (0.25 * facing * base + 6.0 * specular * glint * (facing > 0.0 ? 1.0 : 0.0));
    }
    f_colour = vec4(lit * exposure, 1.0);
}
"""

# Depth only, from the light: pieces and hands cast shadows on the board and each other.
SHADOW_VERTEX = """
#version 330
uniform mat4 light_view_proj;
uniform mat4 model;
in vec3 in_pos;
void main() {
    gl_Position = light_view_proj * model * vec4(in_pos, 1.0);
}
"""

SHADOW_FRAGMENT = """
#version 330
void main() {
}
"""

# The table top: a large flat surface, lit per vertex of a fine grid (the lamp's hot spot
# is smooth), textured and shadowed per fragment. Half the image can be table: the full
# fragment shader there cost a third more than the board and pieces together.
TABLE_VERTEX = """
#version 330
uniform mat4 view_proj;
uniform mat4 model;
uniform mat4 light_view_proj;
uniform vec3 colour;
uniform vec3 light_dir;
uniform vec3 light_colour;
uniform float ambient;
uniform vec3 eye;
uniform float specular;
uniform float shininess;
uniform float exposure;
uniform vec3 lamp_pos;
uniform float lamp_power;
uniform float table_tile;
in vec3 in_pos;
out vec2 v_uv;
out vec3 v_shadow;
out vec3 v_tint;
out vec3 v_sunlit;
out vec3 v_add;
void main() {
    vec4 world = model * vec4(in_pos, 1.0);
    vec3 l = normalize(light_dir);
    vec3 v = normalize(eye - world.xyz);
    vec3 n = vec3(0.0, 0.0, 1.0);
    float diffuse = max(l.z, 0.0);
    vec3 base = colour * 2.0;  // the texture holds half the shade
    vec3 tint = base * ambient * light_colour;
    vec3 sunlit = base * (1.0 - ambient) * diffuse * light_colour
        + pow(max(dot(n, normalize(l + v)), 0.0), shininess) * specular * light_colour;
    vec3 add = vec3(0.0);
    if (lamp_power > 0.0) {
        vec3 to_lamp = lamp_pos - world.xyz;
        float fall = lamp_pos.z * lamp_pos.z / dot(to_lamp, to_lamp);
        vec3 ll = normalize(to_lamp);
        float facing = max(ll.z, 0.0);
        float glint = pow(max(dot(n, normalize(ll + v)), 0.0), shininess * 1.5);
        tint += lamp_power * fall * light_colour * 0.25 * facing * base;
        add += lamp_power * fall * light_colour * 6.0 * specular * glint;
    }
    // The light's projection is orthographic: its coordinates interpolate exactly.
    vec4 light_clip = light_view_proj * world;
    v_shadow = light_clip.xyz * 0.5 + 0.5;
    v_uv = world.xy / table_tile;
    v_tint = tint * exposure;
    v_sunlit = sunlit * exposure;
    v_add = add * exposure;
    gl_Position = view_proj * world;
}
"""

TABLE_FRAGMENT = """
#version 330
uniform sampler2D table_tex;
uniform sampler2DShadow shadow_map;
in vec2 v_uv;
in vec3 v_shadow;
in vec3 v_tint;
in vec3 v_sunlit;
in vec3 v_add;
layout(location = 0) out vec4 f_colour;
layout(location = 1) out vec4 f_mask;
void main() {
    float sun = 1.0;
    vec3 p = v_shadow;
    if (p.x > 0.0 && p.x < 1.0 && p.y > 0.0 && p.y < 1.0 && p.z < 1.0) {
        sun = texture(shadow_map, vec3(p.xy, p.z - 0.0005));
    }
    float shade = texture(table_tex, v_uv).r;
    f_colour = vec4(shade * v_tint + shade * v_sunlit * sun + v_add, 1.0);
    f_mask = vec4(0.0, 0.0, 0.0, 1.0);
}
"""

# Hand parts (stretched spheres, the sleeve's cylinder): one instanced draw per mesh, each
# instance carrying its model matrix (4 columns), normal matrix (3 columns) and colour.
PART_VERTEX = (
    """
#version 330
uniform mat4 view_proj;
in vec3 in_pos;
in vec3 in_normal;
in vec4 i_m0;
in vec4 i_m1;
in vec4 i_m2;
in vec4 i_m3;
in vec3 i_n0;
in vec3 i_n1;
in vec3 i_n2;
in vec3 i_colour;
"""
    + _VARYINGS
    + """
void main() {
    vec4 world = mat4(i_m0, i_m1, i_m2, i_m3) * vec4(in_pos, 1.0);
    v_world = world.xyz;
    v_normal = mat3(i_n0, i_n1, i_n2) * in_normal;
    v_local = in_pos;
    v_local_normal = in_normal;
    v_colour = i_colour;
    v_stripe = 0;
    gl_Position = view_proj * world;
}
"""
)

PART_SHADOW_VERTEX = """
#version 330
uniform mat4 light_view_proj;
in vec3 in_pos;
in vec4 i_m0;
in vec4 i_m1;
in vec4 i_m2;
in vec4 i_m3;
void main() {
    gl_Position = light_view_proj * mat4(i_m0, i_m1, i_m2, i_m3) * vec4(in_pos, 1.0);
}
"""
