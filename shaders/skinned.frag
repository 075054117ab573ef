#version 330 core
// Character shading: a key light from over the viewer's shoulder plus a sky
// and ground fill, so the form reads under any orbit. The colour is the
// vertex's: the material's (times its base colour texture, when it has one),
// or the error colours the viewport computed.

in vec3 v_view_position;
in vec3 v_view_normal;
in vec3 v_color;
in vec2 v_uv;

uniform vec4 u_tint;              // multiplies the colour; alpha < 1 draws translucent
uniform sampler2D u_base_color;   // sRGB storage: samples are linear, as v_color is
uniform bool u_textured;          // the part drawn has a base colour texture

out vec4 out_color;

void main() {
  vec3 n = normalize(v_view_normal);
  // Skins are closed but glTF does not promise winding; light both faces.
  if (!gl_FrontFacing) n = -n;
  vec3 base = u_textured ? v_color * texture(u_base_color, v_uv).rgb : v_color;
  vec3 key_direction = normalize(vec3(0.4, 0.7, 0.6));
  float key = max(dot(n, key_direction), 0.0);
  float sky = 0.5 + 0.5 * n.y;
  vec3 lit = base * (0.25 + 0.75 * key) + base * 0.15 * sky;
  vec3 color = pow(clamp(lit * u_tint.rgb, 0.0, 1.0), vec3(1.0 / 2.2));
  out_color = vec4(color, u_tint.a);
}
