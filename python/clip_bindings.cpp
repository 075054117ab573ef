// keystream.import_clip and keystream.Clip: a source file as numpy arrays.

#include <pybind11/numpy.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "python/bindings.h"

namespace ks::python {

namespace {

// One transform as the module lays it out: translation xyz, rotation xyzw, scale xyz.
void write_transform(const Vec3& t, const Quat& r, const Vec3& s, float* out) {
  const float values[10] = {t.x, t.y, t.z, r.x, r.y, r.z, r.w, s.x, s.y, s.z};
  std::copy(values, values + 10, out);
}

// The import settings from the keyword arguments, refused as the CLI's
// options refuse them (ImportSettings::validate's ranges, named here).
ImportSettings import_settings(const py::object& animation, float sample_rate_hz, float bvh_unit_scale_m,
                               bool allow_outside_uris, uint64_t max_bone_frames) {
  ImportSettings settings;
  if (py::isinstance<py::bool_>(animation)) {
    raise_value_error("animation: must be None, an index or a name, not a bool");
  } else if (py::isinstance<py::int_>(animation)) {
    const long index = animation.cast<long>();
    if (index < 0) raise_value_error("animation: " + std::to_string(index) + " is not an index (0 or more)");
    settings.animation_index = static_cast<int>(index);
  } else if (py::isinstance<py::str>(animation)) {
    settings.animation_name = animation.cast<std::string>();
  } else if (!animation.is_none()) {
    raise_value_error("animation: must be None, an index or a name");
  }
  if (!std::isfinite(sample_rate_hz) ||
      !(sample_rate_hz == 0.f || (sample_rate_hz >= kMinSampleRateHz && sample_rate_hz <= kMaxSampleRateHz))) {
    raise_value_error("sample_rate_hz: must be 0 (automatic) or within 1 to 10000 Hz");
  }
  settings.sample_rate_hz = sample_rate_hz;
  if (!std::isfinite(bvh_unit_scale_m) || bvh_unit_scale_m < 0.f) {
    raise_value_error("bvh_unit_scale_m: must be a positive number of metres per file unit (0 = automatic)");
  }
  settings.bvh_unit_scale_m = bvh_unit_scale_m;
  settings.allow_outside_uris = allow_outside_uris;
  if (max_bone_frames < 2) raise_value_error("max_bone_frames: must be 2 or more");
  settings.max_bone_frames = max_bone_frames;
  if (Status s = settings.validate(); !s) raise_value_error(s.error());
  return settings;
}

std::shared_ptr<Clip> import(const std::filesystem::path& path, const py::object& animation, float sample_rate_hz,
                             float bvh_unit_scale_m, bool allow_outside_uris, uint64_t max_bone_frames) {
  auto clip = std::make_shared<Clip>();
  clip->settings = import_settings(animation, sample_rate_hz, bvh_unit_scale_m, allow_outside_uris, max_bone_frames);
  Result<ImportedClip> imported = [&] {
    py::gil_scoped_release release;  // a long take imports for a while
    return import_clip(path, clip->settings);
  }();
  if (!imported) raise_error(imported.error());  // it names the file
  clip->imported = std::move(imported.value());
  return clip;
}

py::array_t<float> rest_pose(const Clip& clip) {
  const std::vector<Transform>& rest = clip.imported.skeleton.rest_pose;
  py::array_t<float> out({rest.size(), size_t{10}});
  float* data = out.mutable_data();
  for (size_t b = 0; b < rest.size(); ++b) {
    write_transform(rest[b].translation, rest[b].rotation, rest[b].scale, data + 10 * b);
  }
  return out;
}

py::array_t<float> tracks(const Clip& clip) {
  const RawClip& raw = clip.imported.clip;
  const size_t frames = raw.frame_count;
  const size_t bones = raw.bones.size();
  py::array_t<float> out({frames, bones, size_t{10}});
  float* data = out.mutable_data();
  for (size_t f = 0; f < frames; ++f) {
    for (size_t b = 0; b < bones; ++b) {
      const BoneTracks& bone = raw.bones[b];
      write_transform(bone.translations[f], bone.rotations[f], bone.scales[f], data + (f * bones + b) * 10);
    }
  }
  return out;
}

py::dict scalar_tracks(const Clip& clip) {
  py::dict out;
  const RawClip& raw = clip.imported.clip;
  for (const ScalarTrack& track : raw.scalars) {
    py::array_t<float> values({size_t{raw.frame_count}, size_t{track.components}});
    std::copy(track.values.begin(), track.values.end(), values.mutable_data());
    out[py::str(track.name)] = values;
  }
  return out;
}

}  // namespace

void bind_clip(py::module_& m) {
  py::class_<Clip, std::shared_ptr<Clip>>(m, "Clip", "An imported source clip: its skeleton and sampled tracks.")
      .def_property_readonly(
          "source", [](const Clip& c) { return c.imported.source.string(); }, "The file it was imported from.")
      .def_property_readonly(
          "name", [](const Clip& c) { return c.imported.clip.name; }, "The animation's name.")
      .def_property_readonly(
          "sample_rate_hz", [](const Clip& c) { return c.imported.clip.sample_rate_hz; }, "Frames per second.")
      .def_property_readonly(
          "frame_count", [](const Clip& c) { return c.imported.clip.frame_count; },
          "Frames; frame f is at f / sample_rate_hz seconds.")
      .def_property_readonly(
          "duration_s", [](const Clip& c) { return c.imported.clip.duration_s(); },
          "Seconds from the first frame to the last.")
      .def_property_readonly(
          "animation_names", [](const Clip& c) { return c.imported.animation_names; },
          "Every animation in the file, in order.")
      .def_property_readonly(
          "animation_index", [](const Clip& c) { return c.imported.animation_index; },
          "The index of this clip's animation among animation_names.")
      .def_property_readonly(
          "bone_names", [](const Clip& c) { return c.imported.skeleton.bone_names; }, "One name per bone.")
      .def_property_readonly(
          "parents",
          [](const Clip& c) {
            const std::vector<int32_t>& parents = c.imported.skeleton.parents;
            return py::array_t<int32_t>(static_cast<py::ssize_t>(parents.size()), parents.data());
          },
          "numpy int32 (bones,): each bone's parent, -1 for a root; parents come first.")
      .def_property_readonly("rest_pose", &rest_pose,
                             "numpy float32 (bones, 10): the local rest pose, translation xyz (metres), "
                             "rotation xyzw, scale xyz.")
      .def_property_readonly("tracks", &tracks,
                             "numpy float32 (frames, bones, 10): every bone's local transform at every frame, "
                             "laid out as rest_pose.")
      .def_property_readonly("scalar_tracks", &scalar_tracks,
                             "dict name -> numpy float32 (frames, components): morph weights and user curves.")
      .def_property_readonly(
          "warnings", [](const Clip& c) { return c.imported.warnings; },
          "What the import accepted with a defined fix-up.")
      .def("__repr__", [](const Clip& c) {
        return "<keystream.Clip " + c.imported.source.filename().string() + " [" + c.imported.clip.name +
               "]: " + std::to_string(c.imported.skeleton.bone_count()) + " bones, " +
               std::to_string(c.imported.clip.frame_count) + " frames>";
      });

  m.def("import_clip", &import, py::arg("path"), py::arg("animation") = py::none(), py::kw_only(),
        py::arg("sample_rate_hz") = 0.f, py::arg("bvh_unit_scale_m") = 0.f, py::arg("allow_outside_uris") = false,
        py::arg("max_bone_frames") = kDefaultMaxBoneFrames,
        "Imports a .gltf, .glb, .bvh, .fbx, .dae or .zae file as `keystream compress` does.\n\n"
        "animation: None (the first), an index or a name. sample_rate_hz: 0 = automatic. bvh_unit_scale_m: "
        "metres per BVH unit, 0 = guessed. Raises ValueError for a bad setting, keystream.Error (naming the "
        "file) when the file cannot be imported.");
}

}  // namespace ks::python
