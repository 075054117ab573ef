#version 330 core
// One octahedron per bone shape, instanced: the unit shape runs from the
// head at the origin to the tail at +Y; the instance matrix places it.

layout(location = 0) in vec3 in_position;       // unit octahedron
layout(location = 1) in mat4 in_instance;       // locations 1-4: shape to world
layout(location = 5) in vec4 in_instance_color; // linear colour and alpha

uniform mat4 u_view;
uniform mat4 u_projection;

out vec3 v_view_position;
out vec4 v_color;

void main() {
  vec4 view_position = u_view * in_instance * vec4(in_position, 1.0);
  v_view_position = view_position.xyz;
  v_color = in_instance_color;
  gl_Position = u_projection * view_position;
}
