#version 330 core
// Flat shading from the face's own slope (screen-space derivatives), so the
// octahedron needs no normals and reads as a faceted solid.

in vec3 v_view_position;
in vec4 v_color;

uniform vec4 u_tint;  // multiplies the instance colour (translucent originals, selection)

out vec4 out_color;

void main() {
  vec3 n = normalize(cross(dFdx(v_view_position), dFdy(v_view_position)));
  if (dot(n, v_view_position) > 0.0) n = -n;  // face the viewer
  float key = max(dot(n, normalize(vec3(0.4, 0.7, 0.6))), 0.0);
  vec3 lit = v_color.rgb * (0.35 + 0.65 * key);
  out_color = vec4(pow(clamp(lit * u_tint.rgb, 0.0, 1.0), vec3(1.0 / 2.2)), v_color.a * u_tint.a);
}
