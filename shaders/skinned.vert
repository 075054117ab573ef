#version 330 core
// Linear blend skinning from a joint palette held in a buffer texture: four
// RGBA32F texels per bone, the columns of model * inverse bind. Error
// colours come in as vertex colours: each bone's object-space error over
// its tolerance, blended by skin weight on the CPU (viewport_scene.h).
// Texture coordinates pass through for the base colour texture. Morph
// targets move the bind pose first (morph_buffers.h): only those whose
// weight is not 0 are listed, so a mesh at rest loops over nothing.

layout(location = 0) in vec3 in_position;  // bind pose, model space, metres
layout(location = 1) in vec3 in_normal;
layout(location = 2) in vec3 in_color;     // linear base colour
layout(location = 3) in uvec4 in_joints;   // bone indices
layout(location = 4) in vec4 in_weights;   // sum to 1
layout(location = 5) in vec2 in_uv;        // base colour texture coordinates (glTF's: v down)

uniform samplerBuffer u_palette;  // the pose drawn
// Morph targets: per target, per vertex of its run, a position displacement
// (and with two texels per vertex, a normal one), metres, bind pose.
uniform samplerBuffer u_morph_deltas;
// The targets applied: weight (float bits), first texel, first vertex, vertex count.
uniform isamplerBuffer u_morph_active;
uniform int u_morph_count;              // entries in u_morph_active; 0 morphs nothing
uniform int u_morph_texels_per_vertex;  // 1: positions only, 2: positions and normals
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

// Adds each listed target's displacement of this vertex, times its weight.
// gl_VertexID is the vertex's index in the mesh (glDrawElements, no base vertex).
void morph(inout vec3 position, inout vec3 normal) {
  for (int i = 0; i < u_morph_count; ++i) {
    ivec4 target = texelFetch(u_morph_active, i);
    int v = gl_VertexID - target.z;
    if (v < 0 || v >= target.w) continue;
    float weight = intBitsToFloat(target.x);
    int texel = target.y + v * u_morph_texels_per_vertex;
    position += weight * texelFetch(u_morph_deltas, texel).xyz;
    if (u_morph_texels_per_vertex == 2) normal += weight * texelFetch(u_morph_deltas, texel + 1).xyz;
  }
}

void main() {
  vec3 position = in_position;
  vec3 normal = in_normal;
  morph(position, normal);
  mat4 skin = skin_matrix(u_palette);
  vec4 world = skin * vec4(position, 1.0);
  vec4 view_position = u_view * world;
  v_view_position = view_position.xyz;
  // The skin matrix may scale; the normal only needs its direction.
  v_view_normal = mat3(u_view) * mat3(skin) * normal;
  v_color = in_color;
  v_uv = in_uv;
  gl_Position = u_projection * view_position;
}
