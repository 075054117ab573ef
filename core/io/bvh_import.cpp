// BVH import: a parsed BVH document (bvh_parser.h) to a Skeleton and a
// RawClip. Channel values become quaternions, file units become metres, and
// repeated joint names are made unique.
#include "keystream/io/bvh_import.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "keystream/io/bvh_parser.h"
#include "keystream/io/bvh_tokenizer.h"
#include "keystream/io/file_io.h"

namespace ks {

namespace {

using bvh::axis_of;
using bvh::Channel;
using bvh::Diagnostics;
using bvh::EndSiteDecl;
using bvh::FrameLine;
using bvh::Hierarchy;
using bvh::is_position;
using bvh::JointDecl;
using bvh::shown;
using bvh::to_float;


// ---------------------------------------------------------------------------
// Rotations

struct QuatD {
  double x = 0.0, y = 0.0, z = 0.0, w = 1.0;
};

QuatD operator*(const QuatD& a, const QuatD& b) {
  return {a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y, a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
          a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w, a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z};
}

QuatD axis_rotation(size_t axis, double degrees) {
  const double half = 0.5 * degrees * (3.14159265358979323846 / 180.0);
  QuatD q{0.0, 0.0, 0.0, std::cos(half)};
  (axis == 0 ? q.x : axis == 1 ? q.y : q.z) = std::sin(half);
  return q;
}

// ---------------------------------------------------------------------------
// Unit scale

// Largest of the x, y and z extents of the rest pose (joints and end sites),
// in file units. Rest rotations are identity, so positions are sums of offsets.
double rest_extent(const Hierarchy& h) {
  std::vector<std::array<double, 3>> position(h.joints.size());
  std::array<double, 3> lo{0, 0, 0}, hi{0, 0, 0};
  bool first = true;
  auto include = [&](const std::array<double, 3>& p) {
    for (size_t a = 0; a < 3; ++a) {
      lo[a] = first ? p[a] : std::min(lo[a], p[a]);
      hi[a] = first ? p[a] : std::max(hi[a], p[a]);
    }
    first = false;
  };
  for (size_t j = 0; j < h.joints.size(); ++j) {
    const JointDecl& joint = h.joints[j];
    for (size_t a = 0; a < 3; ++a) {
      position[j][a] = joint.offset[a] + (joint.parent < 0 ? 0.0 : position[static_cast<size_t>(joint.parent)][a]);
    }
    include(position[j]);
  }
  for (const EndSiteDecl& site : h.end_sites) {
    const std::array<double, 3>& base = position[static_cast<size_t>(site.parent)];
    include({base[0] + site.offset[0], base[1] + site.offset[1], base[2] + site.offset[2]});
  }
  return std::max({hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]});
}

// BVH has no unit field. The automatic scale assumes a human-sized figure:
// among the units exporters actually use (metres, centimetres, millimetres,
// inches, and the cgspeed CMU conversion's unit of (1/0.45) * 2.54 cm), pick
// the one that makes the rest-pose extent closest to 1.75 m on a log scale,
// so that a factor-of-two miss weighs the same up or down. A degenerate
// skeleton (no extent) gets centimetres, the most common BVH unit.
double automatic_unit_scale(double extent) {
  constexpr std::array<double, 5> kUnits = {1.0, 0.01, 0.001, 0.0254, (1.0 / 0.45) * 2.54 / 100.0};
  constexpr double kHumanHeightM = 1.75;
  if (!(extent > 0.0) || !std::isfinite(extent)) return 0.01;
  double best = kUnits[0];
  for (double unit : kUnits) {
    if (std::fabs(std::log(extent * unit / kHumanHeightM)) < std::fabs(std::log(extent * best / kHumanHeightM))) {
      best = unit;
    }
  }
  return best;
}

// ---------------------------------------------------------------------------
// Motion

// Appends one frame of one joint: rotation is the product of the rotation
// channels in the listed order (column vectors, degrees); translation is the
// OFFSET with each axis that has a position channel replaced by it.
void append_sample(const JointDecl& joint, const double* values, double scale, BoneTracks& tracks) {
  std::array<double, 3> p = joint.offset;
  QuatD q;
  for (size_t i = 0; i < joint.channel_count; ++i) {
    const Channel c = joint.channels[i];
    const double v = values[joint.first_column + i];
    if (is_position(c)) {
      p[axis_of(c)] = v;
    } else {
      q = q * axis_rotation(axis_of(c), v);
    }
  }
  tracks.translations.push_back({to_float(p[0] * scale), to_float(p[1] * scale), to_float(p[2] * scale)});
  tracks.rotations.push_back({to_float(q.x), to_float(q.y), to_float(q.z), to_float(q.w)});
  tracks.scales.push_back({1.f, 1.f, 1.f});
}

// Second pass over the motion: the frame lines are known to be good, and
// their count is final, so the tracks are allocated once, at their size.
Status build_clip(const bvh::Document& document, double scale, const ImportSettings& settings,
                  Diagnostics& diagnostics, RawClip& clip) {
  const Hierarchy& h = document.hierarchy;
  clip.sample_rate_hz = to_float(1.0 / document.frame_time_s);
  std::vector<FrameLine> frames = document.frames;
  if (frames.size() == 1) {
    // A single frame is a legitimate static pose; a clip needs two.
    diagnostics.warn("the motion has a single frame; it is repeated to make a 2-frame static clip");
    frames.push_back(frames[0]);
  }
  if (Status s = check_clip_size(h.joints.size(), frames.size(), settings); !s) {
    return diagnostics.error(document.end_line, "clip too large: " + s.error());
  }

  clip.frame_count = static_cast<uint32_t>(frames.size());
  clip.bones.resize(h.joints.size());
  for (BoneTracks& t : clip.bones) {
    t.translations.reserve(frames.size());
    t.rotations.reserve(frames.size());
    t.scales.reserve(frames.size());
  }
  std::vector<double> values(h.column_count);
  for (const FrameLine& frame : frames) {
    if (Status s = bvh::read_frame(frame, values, diagnostics); !s) return s;
    for (size_t j = 0; j < h.joints.size(); ++j) append_sample(h.joints[j], values.data(), scale, clip.bones[j]);
  }
  for (BoneTracks& t : clip.bones) make_rotations_continuous(t.rotations);
  return {};
}

// ---------------------------------------------------------------------------
// Assembly

// Bone names must be unique; a repeated name gets "_2", "_3"... (skipping any
// suffix that another joint already uses), with a warning.
std::vector<std::string> unique_names(const Hierarchy& h, Diagnostics& diagnostics) {
  constexpr size_t kMaxRenameWarnings = 10;  // then one summary, however many repeats
  std::vector<std::string> names;
  names.reserve(h.joints.size());
  {
    // Most files repeat no name: a sorted list of views says so with one
    // allocation, where the sets below take one per joint.
    std::vector<std::string_view> sorted;
    sorted.reserve(h.joints.size());
    for (const JointDecl& j : h.joints) sorted.push_back(j.name);
    std::sort(sorted.begin(), sorted.end());
    if (std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end()) {
      for (const JointDecl& j : h.joints) names.push_back(j.name);
      return names;
    }
  }
  // The sets view the joints' names and `names`, which is reserved at its
  // size so that no entry moves: no name is copied to be looked up.
  std::unordered_set<std::string_view> original;
  original.reserve(h.joints.size());
  for (const JointDecl& j : h.joints) original.insert(j.name);
  std::unordered_set<std::string_view> used;
  used.reserve(h.joints.size());
  std::unordered_map<std::string_view, size_t> next_suffix;  // keeps a file of 65535 "Bone"s linear
  size_t renamed = 0;
  for (const JointDecl& j : h.joints) {
    std::string name = j.name;
    if (used.count(name) != 0) {
      size_t& k = next_suffix.try_emplace(j.name, 2).first->second;
      do {
        name = j.name + "_" + std::to_string(k++);
      } while (used.count(name) != 0 || original.count(name) != 0);
      if (++renamed <= kMaxRenameWarnings) {
        diagnostics.warn("line " + std::to_string(j.line) + ": joint name " + shown(j.name) +
                         " is used by an earlier joint; renamed to " + shown(name));
      }
    }
    names.push_back(std::move(name));
    used.insert(names.back());
  }
  if (renamed > kMaxRenameWarnings) {
    diagnostics.warn(std::to_string(renamed - kMaxRenameWarnings) + " more repeated joint names were renamed");
  }
  return names;
}

Skeleton build_skeleton(const Hierarchy& h, double scale, Diagnostics& diagnostics) {
  Skeleton skeleton;
  skeleton.bone_names = unique_names(h, diagnostics);
  skeleton.parents.reserve(h.joints.size());
  skeleton.rest_pose.reserve(h.joints.size());
  for (const JointDecl& j : h.joints) {
    skeleton.parents.push_back(j.parent);
    Transform rest;
    rest.translation = {to_float(j.offset[0] * scale), to_float(j.offset[1] * scale), to_float(j.offset[2] * scale)};
    skeleton.rest_pose.push_back(rest);
  }
  for (const EndSiteDecl& site : h.end_sites) {
    skeleton.end_sites.push_back(
        {site.parent,
         {to_float(site.offset[0] * scale), to_float(site.offset[1] * scale), to_float(site.offset[2] * scale)}});
  }
  return skeleton;
}

}  // namespace

Result<ImportedClip> import_bvh(const std::filesystem::path& path, const ImportSettings& settings) {
  Result<std::string> text = read_file(path);
  if (!text) return Error{text.error()};
  Result<ImportedClip> imported = import_bvh_text(text.value(), path.string(), settings);
  if (imported) {
    imported.value().source = path;
    imported.value().clip.name = path.stem().string();
    imported.value().animation_names = {imported.value().clip.name};
  }
  return imported;
}

Result<ImportedClip> import_bvh_text(std::string_view text, std::string_view source_name,
                                     const ImportSettings& settings) {
  Diagnostics diagnostics{std::string(source_name.empty() ? std::string_view("(BVH text)") : source_name), {}};
  if (!std::isfinite(settings.bvh_unit_scale_m) || settings.bvh_unit_scale_m < 0.f) {
    return Error{diagnostics.source + ": BVH unit scale " + std::to_string(settings.bvh_unit_scale_m) +
                 " m per unit is not a positive number (0 = automatic)"};
  }
  const Result<bvh::Document> document = bvh::parse_document(text, diagnostics);
  if (!document) return Error{document.error()};
  const Hierarchy& hierarchy = document.value().hierarchy;

  const double scale =
      settings.bvh_unit_scale_m > 0.f ? settings.bvh_unit_scale_m : automatic_unit_scale(rest_extent(hierarchy));

  ImportedClip out;
  if (Status s = build_clip(document.value(), scale, settings, diagnostics, out.clip); !s) return Error{s.error()};
  out.skeleton = build_skeleton(hierarchy, scale, diagnostics);
  out.clip.name = std::filesystem::path(source_name).stem().string();
  if (out.clip.name.empty()) out.clip.name = std::string(source_name);
  out.animation_names = {out.clip.name};
  out.animation_index = 0;
  out.unit_scale_m = static_cast<float>(scale);
  out.warnings = std::move(diagnostics.warnings);

  if (Status s = out.skeleton.validate(); !s) return Error{diagnostics.source + ": " + s.error()};
  if (Status s = out.clip.validate(out.skeleton); !s) return Error{diagnostics.source + ": " + s.error()};
  return out;
}

}  // namespace ks
