#version 330 core
// Linear blend skinning from a joint palette held in a buffer texture: four
// RGBA32F texels per bone, the columns of model * inverse bind. Error
// colours come in as vertex colours: each bone's object-space error over
// its tolerance, blended by skin weight on the CPU (viewport_scene.h).
// Texture coordinates pass through for the base colour texture.

layout(location = 0) in vec3 in_position;  // bind pose, model space, metres
layout(location = 1) in vec3 in_normal;
layout(location = 2) in vec3 in_color;     // linear base colour
layout(location = 3) in uvec4 in_joints;   // bone indices
layout(location = 4) in vec4 in_weights;   // sum to 1
layout(location = 5) in vec2 in_uv;        // base colour texture coordinates (glTF's: v down)

uniform samplerBuffer u_palette;  // the pose drawn
uniform mat4 u_view;
uniform mat4 u_projection;

out vec3 v_view_position;
out vec3 v_view_normal;
out vec3 v_color;
out vec2 v_uv;

mat4 bone_matrix(samplerBuffer palette, uint bone) {
  int base = int(bone) * 4;
  return mat4(texelFetch(palette, base), texelFetch(palette, base + 1), texelFetch(palette, base + 2),
              texelFetch(palette, base + 3));
}

mat4 skin_matrix(samplerBuffer palette) {
  return in_weights.x * bone_matrix(palette, in_joints.x) + in_weights.y * bone_matrix(palette, in_joints.y) +
         in_weights.z * bone_matrix(palette, in_joints.z) + in_weights.w * bone_matrix(palette, in_joints.w);
}

void main() {
  mat4 skin = skin_matrix(u_palette);
  vec4 world = skin * vec4(in_position, 1.0);
  vec4 view_position = u_view * world;
  v_view_position = view_position.xyz;
  // The skin matrix may scale; the normal only needs its direction.
  v_view_normal = mat3(u_view) * mat3(skin) * in_normal;
  v_color = in_color;
  v_uv = in_uv;
  gl_Position = u_projection * view_position;
}
