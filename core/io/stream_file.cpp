#include "keystream/io/stream_file.h"

#include <string>
#include <unordered_set>

#include "keystream/io/file_io.h"
#include "keystream/runtime/player.h"

namespace ks {

Result<std::unique_ptr<StreamFile>> load_stream_file(const std::filesystem::path& path) {
  Result<std::string> text = read_file(path);
  if (!text) return Error{text.error()};
  auto file = std::make_unique<StreamFile>();
  file->path = path;
  file->bytes.assign(text.value().begin(), text.value().end());
  const std::string name = path.string();
  // Tools read a file once and show what it holds: check every key.
  Result<StreamView> view = StreamView::open(file->bytes, name.c_str(), StreamCheck::kFull);
  if (!view) return Error{view.error()};
  file->view = std::move(view.value());
  return file;
}

Status write_stream_file(const std::filesystem::path& path, std::span<const uint8_t> stream) {
  return write_file_atomically(path, std::span<const unsigned char>(stream.data(), stream.size()));
}

DecodedStream decode_stream(const StreamView& stream) {
  DecodedStream out;
  const uint32_t bones = stream.bone_count();
  const StreamMetadata& meta = stream.metadata();
  Skeleton& skeleton = out.skeleton;
  skeleton.parents.assign(stream.parents().begin(), stream.parents().end());
  // The stored names when they are usable as a Skeleton's (non-empty and
  // unique); a hand-made stream may hold anything.
  bool names_usable = meta.bone_names.size() == bones;
  std::unordered_set<std::string> seen;
  for (const std::string& name : meta.bone_names) names_usable = names_usable && !name.empty() && seen.insert(name).second;
  skeleton.bone_names.resize(bones);
  for (uint32_t b = 0; b < bones; ++b) {
    skeleton.bone_names[b] = names_usable ? meta.bone_names[b] : "bone_" + std::to_string(b);
  }
  RawClip& clip = out.clip;
  clip.name = meta.clip_name.empty() ? "decoded" : meta.clip_name;
  clip.sample_rate_hz = stream.sample_rate_hz();
  clip.frame_count = stream.frame_count();
  clip.bones.resize(bones);
  for (BoneTracks& tracks : clip.bones) {
    tracks.translations.resize(clip.frame_count);
    tracks.rotations.resize(clip.frame_count);
    tracks.scales.resize(clip.frame_count);
  }
  // Scalar tracks as the metadata describes them, when it does usably
  // (a name each, unique, as RawClip::validate wants); else "scalar_<i>" curves.
  const std::span<const StreamTrack> scalar_tracks = stream.scalar_tracks();
  bool scalars_usable = meta.scalars.size() == scalar_tracks.size();
  seen.clear();
  for (const StreamScalarInfo& info : meta.scalars) {
    scalars_usable = scalars_usable && !info.name.empty() && seen.insert(info.name).second;
  }
  clip.scalars.resize(scalar_tracks.size());
  for (size_t s = 0; s < scalar_tracks.size(); ++s) {
    ScalarTrack& track = clip.scalars[s];
    track.components = scalar_tracks[s].components;
    track.values.reserve(size_t{clip.frame_count} * track.components);
    if (!scalars_usable) {
      track.name = "scalar_" + std::to_string(s);
      continue;
    }
    const StreamScalarInfo& info = meta.scalars[s];
    track.name = info.name;
    track.target = info.target == 1 ? ScalarTarget::kMorphWeight : ScalarTarget::kCurve;
    track.node = info.node;
    track.target_index = info.target_index;
  }
  Player player(stream);
  std::vector<Transform> pose(bones);
  std::vector<float> scalar_values(player.scalar_value_count());
  for (uint32_t f = 0; f < clip.frame_count; ++f) {
    player.sample_frame(static_cast<float>(f), pose, scalar_values);
    for (uint32_t b = 0; b < bones; ++b) {
      clip.bones[b].translations[f] = pose[b].translation;
      clip.bones[b].rotations[f] = pose[b].rotation;
      clip.bones[b].scales[f] = pose[b].scale;
    }
    for (size_t s = 0; s < clip.scalars.size(); ++s) {
      const float* first = scalar_values.data() + player.scalar_value_offset(static_cast<uint32_t>(s));
      clip.scalars[s].values.insert(clip.scalars[s].values.end(), first, first + clip.scalars[s].components);
    }
    if (f == 0) skeleton.rest_pose = pose;
  }
  for (BoneTracks& tracks : clip.bones) make_rotations_continuous(tracks.rotations);
  return out;
}

}  // namespace ks
