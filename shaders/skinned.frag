#version 330 core
// Character shading: a key light from over the viewer's shoulder plus a sky
// and ground fill, so the form reads under any orbit. Colour is either the
// material's or the error ramp's.

in vec3 v_view_position;
in vec3 v_view_normal;
in vec3 v_color;
in float v_error_m;

uniform bool u_color_by_error;
uniform float u_error_budget_m;   // error drawn red (ramp position 1)
uniform float u_ramp_at[4];       // ramp positions, fractions of the budget
uniform vec3 u_ramp_color[4];     // ramp colours, linear
uniform vec4 u_tint;              // multiplies the colour; alpha < 1 draws translucent

out vec4 out_color;

vec3 error_ramp(float fraction) {
  if (fraction <= u_ramp_at[0]) return u_ramp_color[0];
  for (int i = 1; i < 4; ++i) {
    if (fraction <= u_ramp_at[i]) {
      float t = (fraction - u_ramp_at[i - 1]) / (u_ramp_at[i] - u_ramp_at[i - 1]);
      return mix(u_ramp_color[i - 1], u_ramp_color[i], t);
    }
  }
  return u_ramp_color[3];
}

void main() {
  vec3 n = normalize(v_view_normal);
  // Skins are closed but glTF does not promise winding; light both faces.
  if (!gl_FrontFacing) n = -n;
  vec3 base = u_color_by_error ? error_ramp(v_error_m / max(u_error_budget_m, 1e-9)) : v_color;
  vec3 key_direction = normalize(vec3(0.4, 0.7, 0.6));
  float key = max(dot(n, key_direction), 0.0);
  float sky = 0.5 + 0.5 * n.y;
  vec3 lit = base * (0.25 + 0.75 * key) + base * 0.15 * sky;
  vec3 color = pow(clamp(lit * u_tint.rgb, 0.0, 1.0), vec3(1.0 / 2.2));
  out_color = vec4(color, u_tint.a);
}
