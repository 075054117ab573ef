// keystream.load and keystream.Stream: a packed stream, played through the
// runtime Player straight into numpy arrays.

#include <pybind11/numpy.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <filesystem>
#include <span>
#include <type_traits>

#include "keystream/io/stream_file.h"
#include "python/bindings.h"

namespace ks::python {

namespace {

// The player writes Transforms; the arrays are float triples, a quad and a
// triple per bone in that order, so a row of 10 floats is one Transform.
static_assert(sizeof(Transform) == 10 * sizeof(float) && std::is_standard_layout_v<Transform>);
constexpr size_t kFloatsPerBone = 10;

std::span<Transform> as_pose(float* row, size_t bones) {
  return {reinterpret_cast<Transform*>(row), bones};
}

// The stream's player, made on first use (a key cache is decoded then).
Player& player_of(Stream& stream) {
  if (!stream.player) stream.player = std::make_unique<Player>(*stream.view);
  return *stream.player;
}

std::shared_ptr<Stream> load(const std::filesystem::path& path) {
  Result<std::unique_ptr<StreamFile>> file = [&] {
    py::gil_scoped_release release;
    return load_stream_file(path);
  }();
  if (!file) raise_error(file.error());  // it names the file
  auto stream = std::make_shared<Stream>();
  stream->source = path.string();
  // Moving the vector keeps its buffer, which the view borrows.
  stream->bytes = std::move(file.value()->bytes);
  stream->view = std::move(file.value()->view);
  return stream;
}

std::vector<std::string> bone_names(const Stream& stream) {
  const StreamView& view = *stream.view;
  std::vector<std::string> names = view.metadata().bone_names;
  if (names.size() != view.bone_count()) {
    // --names hash|none: named as decode_stream names them.
    names.clear();
    for (uint32_t b = 0; b < view.bone_count(); ++b) names.push_back("bone_" + std::to_string(b));
  }
  return names;
}

py::array_t<float> sample(Stream& stream, float t_seconds) {
  const size_t bones = stream.view->bone_count();
  py::array_t<float> out({bones, kFloatsPerBone});
  const std::lock_guard lock(stream.player_mutex);
  player_of(stream).sample(t_seconds, as_pose(out.mutable_data(), bones));
  return out;
}

py::array_t<float> sample_many(Stream& stream,
                               const py::array_t<float, py::array::c_style | py::array::forcecast>& times) {
  if (times.ndim() != 1) raise_value_error("times: must be a one-dimensional sequence of seconds");
  const size_t count = static_cast<size_t>(times.shape(0));
  const size_t bones = stream.view->bone_count();
  py::array_t<float> out({count, bones, kFloatsPerBone});
  const float* t = times.data();
  float* rows = out.mutable_data();
  // Both arrays are held here; the player needs no Python.
  py::gil_scoped_release release;
  const std::lock_guard lock(stream.player_mutex);
  Player& player = player_of(stream);
  for (size_t i = 0; i < count; ++i) player.sample(t[i], as_pose(rows + i * bones * kFloatsPerBone, bones));
  return out;
}

void save(const Stream& stream, const std::filesystem::path& path) {
  Status s = [&] {
    py::gil_scoped_release release;
    return write_stream_file(path, stream.bytes);
  }();
  if (!s) raise_error(s.error());  // it names the file
}

}  // namespace

std::shared_ptr<Stream> open_stream(std::vector<uint8_t> bytes, const std::string& name) {
  auto stream = std::make_shared<Stream>();
  stream->source = name;
  stream->bytes = std::move(bytes);
  Result<StreamView> view = StreamView::open(stream->bytes, name.c_str(), StreamCheck::kFull);
  if (!view) raise_error(view.error());
  stream->view = std::move(view.value());
  return stream;
}

void bind_stream(py::module_& m) {
  py::class_<Stream, std::shared_ptr<Stream>>(m, "Stream",
                                              "A packed stream (.ks), checked, with a runtime Player to sample it.")
      .def_property_readonly(
          "bytes",
          [](const Stream& s) { return py::bytes(reinterpret_cast<const char*>(s.bytes.data()), s.bytes.size()); },
          "The stream's bytes, as a .ks file holds them.")
      .def("save", &save, py::arg("path"), "Writes the stream to `path` atomically (a temporary file, then a rename).")
      .def_property_readonly("bone_names", &bone_names,
                             "One name per bone; bone_<i> when the stream stores none (names='hash' or 'none').")
      .def_property_readonly(
          "parents",
          [](const Stream& s) {
            const std::span<const int32_t> parents = s.view->parents();
            return py::array_t<int32_t>(static_cast<py::ssize_t>(parents.size()), parents.data());
          },
          "numpy int32 (bones,): each bone's parent, -1 for a root.")
      .def_property_readonly(
          "bone_count", [](const Stream& s) { return s.view->bone_count(); }, "Bones.")
      .def_property_readonly(
          "frame_count", [](const Stream& s) { return s.view->frame_count(); }, "Frames of the source clip.")
      .def_property_readonly(
          "sample_rate_hz", [](const Stream& s) { return s.view->sample_rate_hz(); }, "Frames per second.")
      .def_property_readonly(
          "duration_s", [](const Stream& s) { return s.view->duration_s(); },
          "Seconds from the first frame to the last.")
      .def_property_readonly(
          "source_name", [](const Stream& s) { return s.view->metadata().source_name; },
          "The source file's name recorded in the stream (empty when not stored).")
      .def("sample", &sample, py::arg("t"),
           "The local pose at `t` seconds (clamped to the clip), as numpy float32 (bones, 10): translation xyz, "
           "rotation xyzw, scale xyz. A time within 1e-4 frames of a frame is that frame.")
      .def("sample_many", &sample_many, py::arg("times"),
           "The local poses at each of `times` (seconds), as numpy float32 (len(times), bones, 10), written by the "
           "player straight into the array. Releases the GIL while it samples.")
      .def(
          "__len__", [](const Stream& s) { return s.bytes.size(); }, "Bytes of the stream.")
      .def("__repr__", [](const Stream& s) {
        return "<keystream.Stream " + s.source + ": " + std::to_string(s.view->bone_count()) + " bones, " +
               std::to_string(s.view->frame_count()) + " frames, " + std::to_string(s.bytes.size()) + " bytes>";
      });

  m.def("load", &load, py::arg("path"),
        "Reads and fully checks a stream file (.ks). Raises keystream.Error, naming the file, for one that is "
        "missing or damaged.");
}

}  // namespace ks::python
