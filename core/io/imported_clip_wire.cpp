#include "keystream/io/imported_clip_wire.h"

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>
#include <vector>

namespace ks {

namespace {

constexpr uint32_t kMagic = 0x4b53'4943;         // "KSIC": a keystream imported clip
constexpr uint32_t kRequestMagic = 0x4b53'4952;  // "KSIR": a request to import
constexpr uint8_t kOk = 1, kFailed = 2;

class Writer {
 public:
  template <class T>
  void pod(const T& value) {
    static_assert(std::is_trivially_copyable_v<T>);
    m_out.append(reinterpret_cast<const char*>(&value), sizeof(T));
  }
  template <class T>
  void pods(const std::vector<T>& values) {
    static_assert(std::is_trivially_copyable_v<T>);
    pod(static_cast<uint64_t>(values.size()));
    if (!values.empty()) m_out.append(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T));
  }
  void text(std::string_view s) {
    pod(static_cast<uint64_t>(s.size()));
    m_out.append(s);
  }
  void texts(const std::vector<std::string>& strings) {
    pod(static_cast<uint64_t>(strings.size()));
    for (const std::string& s : strings) text(s);
  }
  std::string take() { return std::move(m_out); }

 private:
  std::string m_out;
};

// Reads what Writer wrote; after the first failure every read fails and
// leaves its output empty, so decoding runs to the end and checks once.
class Reader {
 public:
  explicit Reader(std::string_view bytes) : m_in(bytes) {}
  bool ok() const { return m_ok; }
  bool at_end() const { return m_in.empty(); }
  void fail() { m_ok = false; }

  template <class T>
  bool pod(T& value) {
    static_assert(std::is_trivially_copyable_v<T>);
    if (!m_ok || m_in.size() < sizeof(T)) return m_ok = false;
    std::memcpy(&value, m_in.data(), sizeof(T));
    m_in.remove_prefix(sizeof(T));
    return true;
  }
  template <class T>
  bool pods(std::vector<T>& values, uint64_t max_count = UINT64_MAX) {
    uint64_t count = 0;
    // The count is checked against the bytes left before anything is allocated.
    if (!pod(count) || count > max_count || count > m_in.size() / sizeof(T)) return m_ok = false;
    values.resize(static_cast<size_t>(count));
    if (count > 0) std::memcpy(values.data(), m_in.data(), values.size() * sizeof(T));
    m_in.remove_prefix(values.size() * sizeof(T));
    return true;
  }
  bool text(std::string& s) {
    uint64_t size = 0;
    if (!pod(size) || size > m_in.size()) return m_ok = false;
    s.assign(m_in.substr(0, static_cast<size_t>(size)));
    m_in.remove_prefix(static_cast<size_t>(size));
    return true;
  }
  bool texts(std::vector<std::string>& strings) {
    uint64_t count = 0;
    // Each string takes at least its 8-byte size.
    if (!pod(count) || count > m_in.size() / sizeof(uint64_t)) return m_ok = false;
    strings.resize(static_cast<size_t>(count));
    for (std::string& s : strings) text(s);
    return m_ok;
  }

 private:
  std::string_view m_in;
  bool m_ok = true;
};

void write_skeleton(Writer& w, const Skeleton& s) {
  w.texts(s.bone_names);
  w.pods(s.parents);
  w.pods(s.rest_pose);
  w.pods(s.inverse_bind);
  w.pods(s.skin_joints);
  w.pods(s.end_sites);
}

void read_skeleton(Reader& r, Skeleton& s) {
  r.texts(s.bone_names);
  r.pods(s.parents);
  r.pods(s.rest_pose);
  r.pods(s.inverse_bind);
  r.pods(s.skin_joints);
  r.pods(s.end_sites);
}

void write_source_keys(Writer& w, const SourceKeys& keys) {
  w.pod(static_cast<uint8_t>(keys.interpolation));
  w.pods(keys.frames);
}

// A track has at most one key per frame; their order is validate()'s.
void read_source_keys(Reader& r, uint32_t frame_count, SourceKeys& keys) {
  uint8_t interpolation = 0;
  r.pod(interpolation);
  r.pods(keys.frames, frame_count);
  if (interpolation >= kInterpolationCount) r.fail();
  for (const uint32_t frame : keys.frames) {
    if (frame >= frame_count) r.fail();
  }
  keys.interpolation = static_cast<Interpolation>(interpolation);
}

void write_clip(Writer& w, const RawClip& c) {
  w.text(c.name);
  w.pod(c.sample_rate_hz);
  w.pod(c.frame_count);
  w.pod(static_cast<uint64_t>(c.bones.size()));
  for (const BoneTracks& b : c.bones) {
    w.pods(b.translations);
    w.pods(b.rotations);
    w.pods(b.scales);
    for (const SourceKeys& keys : b.source_keys) write_source_keys(w, keys);
  }
  w.pod(static_cast<uint64_t>(c.key_poses.size()));
  for (const SourceKeyPose& k : c.key_poses) {
    w.pod(k.frame_time);
    w.pods(k.pose);
  }
  // Imports make no additive base (the CLI sets it later), so it is not sent.
  w.pod(static_cast<uint64_t>(c.scalars.size()));
  for (const ScalarTrack& t : c.scalars) {
    w.text(t.name);
    w.pod(t.components);
    w.pods(t.values);
    w.pod(static_cast<uint8_t>(t.target));
    w.text(t.node);
    w.pod(t.target_index);
    write_source_keys(w, t.source_keys);
  }
}

void read_clip(Reader& r, RawClip& c) {
  r.text(c.name);
  r.pod(c.sample_rate_hz);
  r.pod(c.frame_count);
  uint64_t bones = 0;
  // No reserve: each bone read takes bytes, so a forged count fails at the end of the message.
  r.pod(bones);
  for (uint64_t b = 0; r.ok() && b < bones; ++b) {
    BoneTracks& tracks = c.bones.emplace_back();
    r.pods(tracks.translations);
    r.pods(tracks.rotations);
    r.pods(tracks.scales);
    for (SourceKeys& keys : tracks.source_keys) read_source_keys(r, c.frame_count, keys);
  }
  uint64_t poses = 0;
  r.pod(poses);
  for (uint64_t k = 0; r.ok() && k < poses; ++k) {
    SourceKeyPose& pose = c.key_poses.emplace_back();
    r.pod(pose.frame_time);
    r.pods(pose.pose);
  }
  uint64_t scalars = 0;
  r.pod(scalars);
  for (uint64_t s = 0; r.ok() && s < scalars; ++s) {
    ScalarTrack& track = c.scalars.emplace_back();
    uint8_t target = 0;
    r.text(track.name);
    r.pod(track.components);
    r.pods(track.values);
    r.pod(target);
    r.text(track.node);
    r.pod(track.target_index);
    read_source_keys(r, c.frame_count, track.source_keys);
    // An unknown target is malformed; counts and values are validate()'s.
    if (target > static_cast<uint8_t>(ScalarTarget::kMorphWeight)) r.fail();
    track.target = static_cast<ScalarTarget>(target);
  }
}

void write_mesh(Writer& w, const SkinnedMesh& m) {
  w.pods(m.positions);
  w.pods(m.normals);
  w.pods(m.colors);
  w.pods(m.joints);
  w.pods(m.weights);
  w.pods(m.indices);
  w.pods(m.uvs);
  w.pod(static_cast<uint64_t>(m.textures.size()));
  for (const MeshTexture& t : m.textures) {
    w.pod(t.width);
    w.pod(t.height);
    w.pods(t.rgba);
  }
  w.pods(m.parts);
  w.pod(static_cast<uint64_t>(m.morph_targets.size()));
  for (const MorphTarget& t : m.morph_targets) {
    w.text(t.name);
    w.text(t.node);
    w.pod(t.mesh);
    w.pod(t.target_index);
    w.pod(t.default_weight);
    w.pod(t.first_vertex);
    w.pods(t.position_deltas);
    w.pods(t.normal_deltas);
  }
}

void read_mesh(Reader& r, SkinnedMesh& m) {
  r.pods(m.positions);
  r.pods(m.normals);
  r.pods(m.colors);
  r.pods(m.joints);
  r.pods(m.weights);
  r.pods(m.indices);
  r.pods(m.uvs);
  uint64_t textures = 0;
  r.pod(textures);
  for (uint64_t t = 0; r.ok() && t < textures; ++t) {
    MeshTexture& texture = m.textures.emplace_back();
    r.pod(texture.width);
    r.pod(texture.height);
    r.pods(texture.rgba);
  }
  r.pods(m.parts);
  uint64_t targets = 0;
  // No reserve: each target read takes bytes, so a forged count fails at the end of the message.
  r.pod(targets);
  for (uint64_t t = 0; r.ok() && t < targets; ++t) {
    MorphTarget& target = m.morph_targets.emplace_back();
    r.text(target.name);
    r.text(target.node);
    r.pod(target.mesh);
    r.pod(target.target_index);
    r.pod(target.default_weight);
    r.pod(target.first_vertex);
    r.pods(target.position_deltas);
    r.pods(target.normal_deltas);
  }
}

}  // namespace

std::string encode_import_result(const Result<ImportedClip>& imported) {
  Writer w;
  w.pod(kMagic);
  if (!imported) {
    w.pod(kFailed);
    w.text(imported.error());
    return w.take();
  }
  const ImportedClip& clip = imported.value();
  w.pod(kOk);
  w.text(clip.source.string());
  write_skeleton(w, clip.skeleton);
  write_clip(w, clip.clip);
  w.pod(static_cast<uint8_t>(clip.mesh.has_value()));
  if (clip.mesh) write_mesh(w, *clip.mesh);
  w.texts(clip.animation_names);
  w.pod(clip.animation_index);
  w.pod(clip.unit_scale_m);
  w.pod(clip.source_start_s);
  w.texts(clip.warnings);
  return w.take();
}

Result<ImportedClip> decode_import_result(std::string_view bytes, bool& well_formed) {
  well_formed = false;
  Reader r(bytes);
  uint32_t magic = 0;
  uint8_t kind = 0;
  if (!r.pod(magic) || magic != kMagic || !r.pod(kind) || (kind != kOk && kind != kFailed)) {
    return Error{"the reader's message does not start as one should"};
  }
  if (kind == kFailed) {
    std::string message;
    if (!r.text(message) || !r.at_end()) return Error{"the reader's error message is cut off"};
    well_formed = true;
    return Error{std::move(message)};
  }
  ImportedClip clip;
  std::string source;
  r.text(source);
  clip.source = source;
  read_skeleton(r, clip.skeleton);
  read_clip(r, clip.clip);
  uint8_t has_mesh = 0;
  if (r.pod(has_mesh) && has_mesh != 0) read_mesh(r, clip.mesh.emplace());
  r.texts(clip.animation_names);
  r.pod(clip.animation_index);
  r.pod(clip.unit_scale_m);
  r.pod(clip.source_start_s);
  r.texts(clip.warnings);
  if (!r.ok() || !r.at_end() || has_mesh > 1) return Error{"the reader's clip is cut off or malformed"};
  well_formed = true;
  return clip;
}

std::string encode_import_request(const std::filesystem::path& path, const ImportSettings& settings) {
  Writer w;
  w.pod(kRequestMagic);
  w.text(path.string());
  w.pod(settings.animation_index);
  w.text(settings.animation_name);
  w.pod(settings.sample_rate_hz);
  w.pod(settings.bvh_unit_scale_m);
  w.pod(static_cast<uint8_t>(settings.allow_outside_uris));
  w.pod(static_cast<uint8_t>(settings.read_textures));
  w.pod(settings.max_bone_frames);
  return w.take();
}

bool decode_import_request(std::string_view bytes, std::filesystem::path& path, ImportSettings& settings) {
  Reader r(bytes);
  uint32_t magic = 0;
  std::string file;
  uint8_t outside = 0, textures = 0;
  r.pod(magic);
  r.text(file);
  r.pod(settings.animation_index);
  r.text(settings.animation_name);
  r.pod(settings.sample_rate_hz);
  r.pod(settings.bvh_unit_scale_m);
  r.pod(outside);
  r.pod(textures);
  r.pod(settings.max_bone_frames);
  settings.allow_outside_uris = outside != 0;
  settings.read_textures = textures != 0;
  path = file;
  return r.ok() && r.at_end() && magic == kRequestMagic;
}

}  // namespace ks
