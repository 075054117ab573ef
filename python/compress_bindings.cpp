// keystream.compress: a clip to a Stream with every setting `keystream
// compress` takes, under the same names, converted as the CLI converts them,
// so the same settings give the same bytes.

#include <pybind11/stl.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <thread>
#include <unordered_map>

#include "keystream/codec/fit.h"
#include "keystream/codec/pack.h"
#include "keystream/io/additive_import.h"
#include "keystream/io/exact_number.h"
#include "keystream/io/override_file.h"
#include "keystream/io/tolerance_file.h"
#include "python/bindings.h"

namespace ks::python {

namespace {

// A number as the CLI would read it when typed as Python prints it: the
// text of a float is its shortest round-trip spelling, so 0.1 reads as
// strtof("0.1"), not as the double 0.1 rounded again.
std::string number_text(const py::handle& value, const std::string& option) {
  if (py::isinstance<py::bool_>(value) || !(py::isinstance<py::int_>(value) || py::isinstance<py::float_>(value))) {
    raise_value_error(option + ": '" + py::str(value).cast<std::string>() + "' is not a number");
  }
  return py::str(value).cast<std::string>();
}

// strtof of the whole text; false when it is not all a finite number.
bool read_float(const std::string& text, float& out) {
  char* end = nullptr;
  out = std::strtof(text.c_str(), &end);
  return !text.empty() && end == text.c_str() + text.size() && std::isfinite(out);
}

// The CLI's positive_number: > 0 and still > 0 once converted to metres.
float positive_number(const py::handle& value, const std::string& option, const char* unit,
                      float (*to_setting)(float)) {
  const std::string text = number_text(value, option);
  float typed = 0.f;
  const bool ok = read_float(text, typed);
  const float out = to_setting(typed);
  if (!ok || !(typed > 0.f) || !(out > 0.f)) {
    raise_value_error(option + ": '" + text + "' is not a positive number of " + unit);
  }
  return out;
}

float any_number(const py::handle& value, const std::string& option) {
  const std::string text = number_text(value, option);
  float out = 0.f;
  if (!read_float(text, out)) raise_value_error(option + ": '" + text + "' is not a number");
  return out;
}

bool is_path(const py::handle& value) {
  return py::isinstance<py::str>(value) || py::hasattr(value, "__fspath__");
}

std::string path_text(const py::handle& value) {
  return py::str(py::module_::import("os").attr("fsdecode")(value)).cast<std::string>();
}

// bone_tolerances: a --bone-tolerances file, or a dict NAME -> MM or (MM, CM)
// read as NAME=MM[@CM] entries ('*' sets the clip's tolerance and distance).
void set_bone_tolerances(const py::handle& value, FitSettings& fit) {
  if (is_path(value)) {
    const std::string path = path_text(value);
    Result<ToleranceFile> file = read_bone_tolerance_file(path);
    if (!file) raise_error(file.error());  // it names the file and line
    apply_tolerance_file(file.value(), fit);
    return;
  }
  if (!py::isinstance<py::dict>(value)) {
    raise_value_error("bone_tolerances: must be a dict NAME -> MM or (MM, CM), or a --bone-tolerances file");
  }
  for (const auto& [key, entry] : value.cast<py::dict>()) {
    const std::string name = py::str(key).cast<std::string>();
    std::string text = name + "=";
    if (py::isinstance<py::tuple>(entry) || py::isinstance<py::list>(entry)) {
      const py::sequence pair = entry.cast<py::sequence>();
      if (pair.size() != 2) raise_value_error("bone_tolerances: \"" + name + "\": must be MM or (MM, CM)");
      text += number_text(pair[0], "bone_tolerances") + "@" + number_text(pair[1], "bone_tolerances");
    } else {
      text += number_text(entry, "bone_tolerances");
    }
    Result<BoneTolerance> parsed = parse_bone_tolerance(text);
    if (!parsed) raise_value_error("bone_tolerances: " + parsed.error());
    if (is_clip_wide(parsed.value())) {
      fit.tolerance_m = parsed.value().tolerance_m;
      if (parsed.value().shell_distance_m > 0.f) fit.shell_distance_m = parsed.value().shell_distance_m;
    } else {
      fit.bone_tolerances.push_back(std::move(parsed.value()));
    }
  }
}

// scalar_precisions: a --scalar-precisions file, or a dict NAME -> X.
void set_scalar_precisions(const py::handle& value, FitSettings& fit) {
  if (is_path(value)) {
    const std::string path = path_text(value);
    const Status s = read_override_file("scalar_precisions", path, "precision", [&](std::string_view entry, uint32_t) {
      Result<ScalarPrecision> parsed = parse_scalar_precision(entry);
      if (!parsed) return Status{Error{path + ": " + parsed.error()}};
      fit.scalar_precisions.push_back(std::move(parsed.value()));
      return Status{};
    });
    if (!s) raise_error(s.error());
    return;
  }
  if (!py::isinstance<py::dict>(value)) {
    raise_value_error("scalar_precisions: must be a dict NAME -> X, or a --scalar-precisions file");
  }
  for (const auto& [key, entry] : value.cast<py::dict>()) {
    Result<ScalarPrecision> parsed =
        parse_scalar_precision(py::str(key).cast<std::string>() + "=" + number_text(entry, "scalar_precisions"));
    if (!parsed) raise_value_error("scalar_precisions: " + parsed.error());
    fit.scalar_precisions.push_back(std::move(parsed.value()));
  }
}

// Overrides naming what the clip lacks, refused as the CLI refuses them.
void check_known(const FitSettings& fit, const Clip& clip) {
  const std::string source = clip.imported.source.string();
  if (fit.error_mode != ErrorMode::kLocal) {
    const OverrideNames bones{fit.bone_tolerances.size(),
                              [&](size_t i) -> const std::string& { return fit.bone_tolerances[i].bone; },
                              [](size_t) { return std::string("bone_tolerances"); }};
    const Status s = check_names_known(bones, bone_index_by_name(clip.imported.skeleton.bone_names), source, "bone",
                                       "bone tolerances", "");
    if (!s) raise_value_error(s.error());
  }
  std::unordered_map<std::string_view, int32_t> known;
  for (size_t i = 0; i < clip.imported.clip.scalars.size(); ++i) {
    known.emplace(clip.imported.clip.scalars[i].name, static_cast<int32_t>(i));
  }
  const OverrideNames scalars{fit.scalar_precisions.size(),
                              [&](size_t i) -> const std::string& { return fit.scalar_precisions[i].track; },
                              [](size_t) { return std::string("scalar_precisions"); }};
  const Status s = check_names_known(scalars, known, source, "scalar track", "scalar precisions", "");
  if (!s) raise_value_error(s.error());
}

std::shared_ptr<Stream> compress(const Clip& clip, const py::object& tolerance_mm, const py::object& shell_distance_cm,
                                 const py::object& bone_tolerances, const py::object& scalar_precision,
                                 const py::object& scalar_precisions, bool local,
                                 const py::object& translation_error_mm, const py::object& rotation_error_deg,
                                 const py::object& scale_error, const std::string& split,
                                 const std::string& rest_tracks, const std::string& names,
                                 const py::object& discontinuity_ratio, const py::object& jump_interval, bool zstd,
                                 int zstd_level, const py::object& additive_base) {
  FitSettings fit;
  PackSettings pack_settings = tool_pack_settings();
  // None keeps the CLI's default, which no typed value equals exactly
  // (0.1 mm is 0.0001f; --tolerance 0.1 gives 0.1f * 1e-3f).
  std::string tolerance_option;
  if (!tolerance_mm.is_none()) {
    fit.tolerance_m = positive_number(tolerance_mm, "tolerance_mm", "millimetres", times_milli);
    tolerance_option = "tolerance_mm";
  }
  if (!shell_distance_cm.is_none()) {
    fit.shell_distance_m = positive_number(shell_distance_cm, "shell_distance_cm", "centimetres", times_centi);
    tolerance_option = "shell_distance_cm";
  }
  if (!bone_tolerances.is_none()) {
    set_bone_tolerances(bone_tolerances, fit);
    tolerance_option = "bone_tolerances";
  }
  if (!scalar_precision.is_none()) {
    const std::string text = number_text(scalar_precision, "scalar_precision");
    float value = 0.f;
    if (!read_float(text, value) || !(value > 0.f)) {
      raise_value_error("scalar_precision: '" + text + "' is not a positive number");
    }
    fit.scalar_precision = value;
  }
  if (!scalar_precisions.is_none()) set_scalar_precisions(scalar_precisions, fit);
  std::string per_kind_option;
  if (!translation_error_mm.is_none()) {
    fit.translation_error_m = positive_number(translation_error_mm, "translation_error_mm", "millimetres", times_milli);
    per_kind_option = "translation_error_mm";
  }
  if (!rotation_error_deg.is_none()) {
    fit.rotation_error_deg = positive_number(rotation_error_deg, "rotation_error_deg", "degrees", as_is);
    if (fit.rotation_error_deg >= 180.f) raise_value_error("rotation_error_deg: must be below 180 degrees");
    per_kind_option = "rotation_error_deg";
  }
  if (!scale_error.is_none()) {
    fit.scale_error = positive_number(scale_error, "scale_error", "scale units", as_is);
    per_kind_option = "scale_error";
  }
  if (local) fit.error_mode = ErrorMode::kLocal;
  if (!local && !per_kind_option.empty()) {
    raise_value_error(per_kind_option +
                      " sets a per-kind threshold of local mode; the default object-space mode "
                      "takes tolerance_mm (add local=True for per-kind thresholds)");
  }
  if (local && !tolerance_option.empty()) {
    raise_value_error(tolerance_option + " sets the object-space tolerance, which local mode does not use");
  }
  if (split == "largest-error") {
    fit.split_rule = SplitRule::kLargestError;
  } else if (split == "midpoint") {
    fit.split_rule = SplitRule::kMidpoint;
  } else {
    raise_value_error("split: '" + split + "' is neither 'largest-error' nor 'midpoint'");
  }
  if (!parse_rest_tracks(rest_tracks, fit.rest_tracks)) {
    raise_value_error("rest_tracks: '" + rest_tracks + "' is neither 'keep' nor 'skip'");
  }
  if (names == "full") {
    pack_settings.names = NameStorage::kFull;
  } else if (names == "hash") {
    pack_settings.names = NameStorage::kHash;
  } else if (names == "none") {
    pack_settings.names = NameStorage::kNone;
  } else {
    raise_value_error("names: '" + names + "' is neither 'full', 'hash' nor 'none'");
  }
  if (!discontinuity_ratio.is_none()) {
    fit.discontinuity_ratio = any_number(discontinuity_ratio, "discontinuity_ratio");
    if (fit.discontinuity_ratio < 0.f) raise_value_error("discontinuity_ratio: must be 0 (off) or a positive number");
  }
  pack_settings.auto_jump_interval =
      py::isinstance<py::str>(jump_interval) && jump_interval.cast<std::string>() == "auto";
  if (!pack_settings.auto_jump_interval) {
    if (py::isinstance<py::str>(jump_interval)) {
      raise_value_error("jump_interval: must be 'auto', 0 (none) or a positive number of seconds");
    }
    pack_settings.jump_interval_s = any_number(jump_interval, "jump_interval");
    if (pack_settings.jump_interval_s < 0.f) {
      raise_value_error("jump_interval: must be 'auto', 0 (none) or a positive number of seconds");
    }
  }
  pack_settings.zstd = zstd;
  if (zstd_level < 1 || zstd_level > 22) {
    raise_value_error("zstd_level: '" + std::to_string(zstd_level) + "' is not a whole number in 1..22");
  }
  pack_settings.zstd_level = zstd_level;
  std::optional<AdditiveBaseSpec> additive;
  if (!additive_base.is_none()) {
    Result<AdditiveBaseSpec> parsed = parse_additive_base(path_text(additive_base));
    if (!parsed) raise_value_error("additive_base: " + parsed.error());
    additive = std::move(parsed.value());
  }
  for (const Status& s : {fit.validate(), pack_settings.validate()}) {
    if (!s) raise_value_error(s.error());
  }
  check_known(fit, clip);

  const std::string source = clip.imported.source.string();
  pack_settings.source_name = clip.imported.source.filename().string();
  Result<std::vector<uint8_t>> bytes = [&]() -> Result<std::vector<uint8_t>> {
    py::gil_scoped_release release;  // other Python threads run while it fits
    std::optional<ImportedClip> layer;
    if (additive) {
      layer = clip.imported;
      if (Status s = make_imported_additive(*layer, *additive, clip.settings); !s)
        return Error{source + ": " + s.error()};
    }
    const ImportedClip& imported = layer ? *layer : clip.imported;
    const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
    Result<FittedClip> fitted = fit_clip(imported.skeleton, imported.clip, fit, threads);
    if (!fitted) return Error{source + ": " + fitted.error()};
    Result<std::vector<uint8_t>> packed = pack(fitted.value(), pack_settings);
    if (!packed) return Error{source + ": " + packed.error()};
    return packed;
  }();
  if (!bytes) raise_error(bytes.error());
  return open_stream(std::move(bytes.value()), source);
}

}  // namespace

void bind_compress(py::module_& m) {
  m.def("compress", &compress, py::arg("clip"), py::arg("tolerance_mm") = py::none(),
        py::arg("shell_distance_cm") = py::none(), py::arg("bone_tolerances") = py::none(), py::kw_only(),
        py::arg("scalar_precision") = py::none(), py::arg("scalar_precisions") = py::none(), py::arg("local") = false,
        py::arg("translation_error_mm") = py::none(), py::arg("rotation_error_deg") = py::none(),
        py::arg("scale_error") = py::none(), py::arg("split") = "largest-error", py::arg("rest_tracks") = "keep",
        py::arg("names") = "full", py::arg("discontinuity_ratio") = py::none(), py::arg("jump_interval") = "auto",
        py::arg("zstd") = false, py::arg("zstd_level") = 19, py::arg("additive_base") = py::none(),
        "Fits, quantizes and packs `clip` as `keystream compress` does, with its options under the same names "
        "(docs/python.md); the same settings give the same bytes. None keeps the CLI's default (tolerance_mm "
        "0.1, shell_distance_cm 3, scalar_precision 0.0001, translation_error_mm 0.5, rotation_error_deg 0.1, "
        "scale_error 0.001, discontinuity_ratio 8). bone_tolerances: dict NAME -> MM or (MM, CM), or a "
        "--bone-tolerances file; scalar_precisions: dict NAME -> X, or a --scalar-precisions file. Releases "
        "the GIL while it fits and packs. Raises ValueError for a bad setting, keystream.Error (naming the "
        "file) when the fit fails.");
}

}  // namespace ks::python
