// The keystream Python module: import a clip, compress it, load, sample and
// measure streams (docs/python.md). Each concept's bindings have their file.

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>

#include "keystream/codec/error_budget.h"
#include "keystream/codec/measure.h"
#include "keystream/codec/measure_json.h"
#include "python/bindings.h"

namespace ks::python {

namespace {

// keystream.Error, made when the module is; the module's attribute keeps it alive.
PyObject* g_error = nullptr;

// The measurement as `measure` promises it: every bone at the shell distance
// of the tolerance the stream records (object-space streams).
py::object measure_clip(const Clip& clip, const Stream& stream) {
  const Skeleton& skeleton = clip.imported.skeleton;
  const StreamMetadata& md = stream.view->metadata();
  MeasureSettings settings;
  std::vector<float> tolerances;
  if (!md.local_mode && md.tolerance_m > 0.f && stream.view->bone_count() == skeleton.bone_count()) {
    std::vector<BoneTolerance> overrides;
    for (const StreamBoneTolerance& o : md.bone_tolerances) {
      if (o.bone < skeleton.bone_count()) {
        overrides.push_back({skeleton.bone_names[o.bone], o.tolerance_m, o.shell_distance_m});
      }
    }
    Result<BoneTolerances> resolved = resolve_bone_tolerances(skeleton, md.tolerance_m, md.shell_distance_m, overrides);
    if (resolved) {
      settings.bone_shell_distance_m = resolved.value().shell_distance_m;
      tolerances = resolved.value().tolerance_m;
    }
  }
  Result<ClipMeasurement> measured = [&] {
    py::gil_scoped_release release;
    return measure(skeleton, clip.imported.clip, *stream.view, settings);
  }();
  if (!measured) raise_error(clip.imported.source.string() + ": " + measured.error());
  const std::string text = measurement_json(measured.value(), skeleton, tolerances);
  return py::module_::import("json").attr("loads")(text);
}

}  // namespace

void raise_error(const std::string& message) {
  PyErr_SetString(g_error, message.c_str());
  throw py::error_already_set();
}

void raise_value_error(const std::string& message) {
  throw py::value_error(message);
}

}  // namespace ks::python

PYBIND11_MODULE(keystream, m) {
  namespace py = pybind11;
  using namespace ks::python;
  m.doc() =
      "keystream: import animation clips, compress them to streams within an error bound, and sample and "
      "measure streams through the runtime player. See docs/python.md.";
  g_error = py::exception<std::runtime_error>(m, "Error", PyExc_RuntimeError).ptr();
  m.attr("Error").attr("__doc__") =
      "A file that cannot be read or written, or a clip that cannot be compressed; the message names the file.";
  bind_clip(m);
  bind_stream(m);
  bind_compress(m);
  m.def("measure", &measure_clip, py::arg("clip"), py::arg("stream"),
        "Decodes `stream` at every frame of `clip` (and at its key poses) through the player and returns the "
        "figures as a dict: sizes, keys, per-kind track errors, object-space errors (max_m, p99_m per "
        "distance_m), and each bone's error (bone_errors) against the tolerance the stream records. Lengths are "
        "in metres. Raises keystream.Error when the stream is not of this clip.");
}
