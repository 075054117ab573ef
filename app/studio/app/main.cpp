// keystream-studio: tune the codec on a clip and see what it does.
//   keystream-studio [FILE] [--animation NAME|INDEX] [--screenshot OUT.png]
//                    [--frame N] [--select BONE] [--select-curve TRACK] [--bone-filter TEXT]
//                    [--size WxH] [--view MODE] [--color MODE] [--colors-against MM[@CM]]
//                    [--tolerance MM] [--shell-distance CM] [--bone-tolerance NAME=MM[@CM]]...
//                    [--scalar-precision X|NAME=X]... [--additive-base BASE] [--layer-alone]
//                    [--local [--translation-error MM] [--rotation-error DEG]
//                    [--scale-error X]] [--shaders DIR] [--save-stream OUT.ks]
//                    [--export-glb OUT.glb] [--print-command] [--show-file-menu]
//                    [--open-choose FILE [--open-choose-animation N] [--open-press|--open-escape]]

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <unordered_set>

#include "app/studio/app/studio_app.h"
#include "keystream/clip/excerpt.h"
#include "keystream/io/tolerance_file.h"

namespace {

constexpr const char* kUsage =
    "usage: keystream-studio [FILE...] [options]\n"
    "\n"
    "Opens FILE (.gltf, .glb, .bvh, .fbx, .dae, .zae or .ks; default: the built-in\n"
    "demo clip), fits it with the settings in the Settings panel, and re-fits\n"
    "on every change. A folder, several files or a file of several animations\n"
    "opens as a set (the Set panel): every clip fitted with the same settings,\n"
    "the first one in the other panels. When FILE does not load, the studio opens with no clip\n"
    "and the error in the Open window; the unattended modes below (--screenshot,\n"
    "--simulate-play, --simulate-drag, the File menu actions) exit 1 instead.\n"
    "\n"
    "options:\n"
    "  --animation NAME|INDEX   animation of a glTF, FBX or Collada file (default: 0)\n"
    "  --screenshot OUT.png     render the UI once the fit has finished, save it\n"
    "                           as a PNG and exit (for tests; needs a display,\n"
    "                           e.g. xvfb-run)\n"
    "  --frame N                start at frame N\n"
    "  --select BONE            select a bone by name or index (default: the\n"
    "                           bone with the largest error, once fitted)\n"
    "  --select-curve TRACK     show a scalar track (morph weight or user curve,\n"
    "                           by name or index) in the Curves panel\n"
    "  --bone-filter TEXT       show only the bones (and curves) whose names\n"
    "                           contain TEXT (and their ancestors) in the Bones panel\n"
    "  --curve-view quaternion|euler\n"
    "                           Curves: rotations as quaternion components\n"
    "                           (default) or XYZ Euler angles in degrees\n"
    "  --size WxH               window size (default 1600x1000, at least 640x480)\n"
    "  --view side-by-side|overlay\n"
    "                           viewport: original and compressed side by side\n"
    "                           (default) or in one view: a mesh's compressed\n"
    "                           pose as edges over the original, a skeleton's\n"
    "                           original translucent over the compressed\n"
    "  --color error|material   colour the compressed character by its\n"
    "                           object-space error (default) or by its material\n"
    "  --colors-against MM[@CM] read the error colours against MM millimetres at\n"
    "                           CM centimetres (default 3) from every bone instead\n"
    "                           of each bone's own tolerance from the fit\n"
    "  --tolerance MM           object-space tolerance E: every virtual vertex of\n"
    "                           every bone within MM of the source (default 0.1)\n"
    "  --shell-distance CM      distance d of the virtual vertices from each bone\n"
    "                           (default 3)\n"
    "  --bone-tolerance NAME=MM[@CM]\n"
    "                           another E (and d) for bone NAME and the bones\n"
    "                           below it; repeatable\n"
    "  --bone-tolerances FILE   a tolerance file as keystream compress reads it:\n"
    "                           *=MM[@CM] for the clip, NAME=MM[@CM] per bone\n"
    "  --scalar-precision X     precision of every scalar track (morph-target\n"
    "                           weights, user curves), in the track's unit\n"
    "                           (default 0.0001)\n"
    "  --scalar-precision NAME=X\n"
    "                           another precision for scalar track NAME; repeatable\n"
    "  --rest-tracks keep|skip  skip: bone tracks at the skeleton's rest value\n"
    "                           store nothing, as keystream compress does\n"
    "                           (Settings > skip rest tracks; default keep)\n"
    "  --additive-base first-frame|bind-pose|FILE[#ANIMATION]\n"
    "                           fit the clip as an additive layer to this base,\n"
    "                           as keystream compress does (Settings > additive base)\n"
    "  --layer-alone            viewport: an additive clip's layer on the bind\n"
    "                           pose, not composed on its base\n"
    "  --local                  fit per-kind local thresholds instead (version 1):\n"
    "  --translation-error MM     translation threshold, mm (default 0.5)\n"
    "  --rotation-error DEG       rotation threshold, degrees (default 0.1)\n"
    "  --scale-error X            scale threshold (default 0.001)\n"
    "  --shaders DIR            the viewport's GLSL files (default: the\n"
    "                           repository's shaders/)\n"
    "  --simulate-play S        play the clip for S seconds, then print frame\n"
    "                           times and the viewport's share of them\n"
    "  --simulate-drag S        move the tolerance every frame for S\n"
    "                           seconds, as a slider drag would, then print frame\n"
    "                           times and exit (responsiveness check)\n"
    "  --refit-tolerance MM     with --simulate-play: once playing, set the\n"
    "                           tolerance to MM as the slider would, and print\n"
    "                           frame times until the clip (and a set) refit\n"
    "\n"
  "File menu actions, run once the first fit is done, as the menu's dialogs\n"
  "run them (then the studio exits, or takes the --screenshot; exit 1 when\n"
  "one fails; an existing file is replaced without asking):\n"
  "  --save-stream OUT.ks     File > Save stream: the fitted stream\n"
  "  --export-glb OUT.glb     File > Export decoded glTF: the decoded animation\n"
  "                           on the source's meshes (a bare skeleton for BVH)\n"
  "  --print-command          File > Copy as command: print the keystream\n"
  "                           compress line that writes the same stream (to\n"
  "                           --save-stream's file, else the default beside FILE)\n"
  "  --show-file-menu         with --screenshot: the File menu clicked open\n"
    "  --show-refitting         with --screenshot: taken while a refit at half\n"
    "                           the tolerance runs (the Settings panel's progress)\n"
    "  --show-rd                the Rate-distortion panel open (View menu, Ctrl+D);\n"
    "                           a screenshot waits for its sweep to finish\n"
    "  --rd-click N             with --show-rd and --screenshot: click the table row\n"
    "                           of point N (0 = 0.01 mm) once the sweep is done,\n"
    "                           then wait for the refit it asks for\n"
  "  --show-set               the Set tab chosen in the Curves window (a folder or\n"
  "                           several files open on it; a file of several\n"
  "                           animations on the curves)\n"
  "  --save-tolerances FILE   Set > Save: the tolerance file of the settings\n"
  "  --save-all DIR           Set > Save all: a .ks per clip of the set into DIR,\n"
  "                           named as keystream compress --all-animations names\n"
  "                           them (exit 1 when one exists)\n"
  "  --print-set-command      Set > Copy as command: print the keystream compress\n"
  "                           line that cooks the set (reading --save-tolerances'\n"
  "                           file, into --save-all's folder)\n"
  "  --open-choose FILE       File > Open: click FILE in the Open window (the\n"
  "                           studio then prints what is open)\n"
  "  --open-choose-animation N\n"
  "                           choose FILE's animation N (default 0)\n"
  "  --open-press             press Open\n"
  "  --open-escape            press Escape in the Open window instead\n"
  "  -h, --help               show this help\n";

int usage_error(const std::string& message) {
  // The message quotes option values as given: bounded and escaped here, once.
  std::fprintf(stderr, "keystream-studio: %s\n%s", ks::excerpt(message, ks::kMessageExcerptChars).c_str(), kUsage);
  return 2;
}

// A threshold given on the command line: a finite number above zero.
bool parse_threshold(const std::string& text, float* value) {
  char* end = nullptr;
  const float parsed = std::strtof(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !std::isfinite(parsed) || !(parsed > 0.f)) return false;
  *value = parsed;
  return true;
}

// "MM" or "MM@CM": a tolerance in millimetres and, optionally, a distance in
// centimetres (left as it is when not given), both above zero.
bool parse_tolerance_at(const std::string& text, float* tolerance_m, float* distance_m) {
  const size_t at = text.find('@');
  float mm = 0.f, cm = 0.f;
  if (!parse_threshold(text.substr(0, at), &mm)) return false;
  if (at != std::string::npos && !parse_threshold(text.substr(at + 1), &cm)) return false;
  *tolerance_m = mm / 1000.f;
  if (at != std::string::npos) *distance_m = cm / 100.f;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  ks::studio::StudioOptions options;
  std::unordered_set<std::string> bones_given;  // --bone-tolerance names, each once
  std::unordered_set<std::string> scalars_given;  // --scalar-precision names, each once
  options.clip = KS_DEMO_CLIP;
  options.shader_dir = KS_SHADER_DIR;
  bool have_clip = false;
  // The last option of each mode given, so that mixing them is refused by name (as keystream does).
  std::string tolerance_option, per_kind_option;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    auto value = [&](std::string& out) {
      if (i + 1 >= argc) return false;
      out = argv[++i];
      return true;
    };
    std::string text;
    if (arg == "-h" || arg == "--help") {
      std::fputs(kUsage, stdout);
      return 0;
    } else if (arg == "--animation") {
      if (!value(text)) return usage_error("--animation needs a value");
      char* end = nullptr;
      const long index = std::strtol(text.c_str(), &end, 10);
      if (!text.empty() && *end == '\0' && index >= 0) {
        options.import.animation_index = static_cast<int>(index);
      } else {
        options.import.animation_name = text;
      }
    } else if (arg == "--screenshot") {
      if (!value(text)) return usage_error("--screenshot needs a file name");
      options.screenshot = text;
    } else if (arg == "--frame") {
      if (!value(text)) return usage_error("--frame needs a number");
      char* end = nullptr;
      const float frame = std::strtof(text.c_str(), &end);
      if (text.empty() || *end != '\0' || !(frame >= 0.f)) return usage_error("--frame: '" + text + "' is not a frame number");
      options.frame = frame;
    } else if (arg == "--simulate-drag" || arg == "--simulate-play") {
      if (!value(text)) return usage_error(std::string(arg) + " needs seconds");
      char* end = nullptr;
      const float seconds = std::strtof(text.c_str(), &end);
      if (text.empty() || *end != '\0' || !(seconds > 0.f) || seconds > 3600.f) {
        return usage_error(std::string(arg) + ": '" + text + "' is not a number of seconds");
      }
      (arg == "--simulate-drag" ? options.drag_seconds : options.play_seconds) = seconds;
    } else if (arg == "--view") {
      if (!value(text)) return usage_error("--view needs side-by-side or overlay");
      if (text == "side-by-side") {
        options.viewport.mode = ks::studio::ViewMode::kSideBySide;
      } else if (text == "overlay") {
        options.viewport.mode = ks::studio::ViewMode::kOverlay;
      } else {
        return usage_error("--view: '" + text + "' is not side-by-side or overlay");
      }
    } else if (arg == "--color") {
      if (!value(text)) return usage_error("--color needs error or material");
      if (text == "error") {
        options.viewport.coloring = ks::studio::ErrorColoring::kError;
      } else if (text == "material") {
        options.viewport.coloring = ks::studio::ErrorColoring::kMaterial;
      } else {
        return usage_error("--color: '" + text + "' is not error or material");
      }
    } else if (arg == "--colors-against") {
      if (!value(text) || !parse_tolerance_at(text, &options.viewport.fixed_tolerance_m,
                                              &options.viewport.fixed_distance_m)) {
        return usage_error("--colors-against: '" + text + "' is not MM or MM@CM with numbers above 0");
      }
      options.viewport.reference = ks::studio::ErrorReference::kFixed;
    } else if (arg == "--tolerance" || arg == "--shell-distance") {
      float number = 0.f;
      if (!value(text) || !parse_threshold(text, &number)) {
        return usage_error(std::string(arg) + ": '" + text + "' is not a number above 0");
      }
      if (!options.fit) options.fit = ks::FitSettings{};
      // Converted as keystream compress converts them, so Copy as command gives the same floats back.
      if (arg == "--tolerance") options.fit->tolerance_m = number * 1e-3f;
      if (arg == "--shell-distance") options.fit->shell_distance_m = number * 1e-2f;
      tolerance_option = arg;
    } else if (arg == "--bone-tolerances") {
      // The set's tolerance file, as keystream compress reads it (Set panel > Load).
      if (!value(text)) return usage_error("--bone-tolerances needs a file");
      ks::Result<ks::ToleranceFile> file = ks::read_bone_tolerance_file(text);
      if (!file) return usage_error("--bone-tolerances: " + file.error());
      if (!options.fit) options.fit = ks::FitSettings{};
      for (const ks::BoneTolerance& bone : file.value().bone_tolerances) {
        if (!bones_given.insert(bone.bone).second) {
          return usage_error("--bone-tolerances: bone '" + ks::excerpt(bone.bone) + "' is given twice");
        }
      }
      std::vector<ks::BoneTolerance> given = std::move(options.fit->bone_tolerances);
      ks::apply_tolerance_file(file.value(), *options.fit);
      given.insert(given.end(), options.fit->bone_tolerances.begin(), options.fit->bone_tolerances.end());
      options.fit->bone_tolerances = std::move(given);
      tolerance_option = arg;
    } else if (arg == "--save-tolerances" || arg == "--save-all") {
      if (!value(text)) return usage_error(std::string(arg) + " needs a path");
      (arg == "--save-all" ? options.save_all : options.save_tolerances) = std::filesystem::path(text);
    } else if (arg == "--show-set") {
      options.show_set = true;
    } else if (arg == "--print-set-command") {
      options.print_set_command = true;
    } else if (arg == "--refit-tolerance") {
      float number = 0.f;
      if (!value(text) || !parse_threshold(text, &number)) {
        return usage_error("--refit-tolerance: '" + text + "' is not a number above 0");
      }
      options.refit_tolerance_mm = number;
    } else if (arg == "--rest-tracks") {
      if (!value(text)) return usage_error("--rest-tracks needs keep or skip");
      ks::RestTracks rest_tracks = ks::RestTracks::kKeep;
      if (!ks::parse_rest_tracks(text, rest_tracks)) {
        return usage_error("--rest-tracks: '" + text + "' is neither keep nor skip");
      }
      if (!options.fit) options.fit = ks::FitSettings{};
      options.fit->rest_tracks = rest_tracks;
    } else if (arg == "--bone-tolerance") {
      ks::BoneTolerance bone;
      const size_t equals = value(text) ? text.find('=') : std::string::npos;
      if (equals == std::string::npos || equals == 0 ||
          !parse_tolerance_at(text.substr(equals + 1), &bone.tolerance_m, &bone.shell_distance_m)) {
        return usage_error("--bone-tolerance: '" + text + "' is not NAME=MM or NAME=MM@CM with numbers above 0");
      }
      bone.bone = text.substr(0, equals);
      if (!options.fit) options.fit = ks::FitSettings{};
      if (!bones_given.insert(bone.bone).second) {
        return usage_error("--bone-tolerance: bone '" + ks::excerpt(bone.bone) + "' is given twice");
      }
      options.fit->bone_tolerances.push_back(bone);
      tolerance_option = arg;
    } else if (arg == "--scalar-precision") {
      // X, or NAME=X split at the last '=' (names may hold one), as keystream compress reads it.
      if (!value(text)) return usage_error("--scalar-precision needs X or NAME=X");
      const size_t equals = text.rfind('=');
      float precision = 0.f;
      if (!parse_threshold(equals == std::string::npos ? text : text.substr(equals + 1), &precision) || equals == 0) {
        return usage_error("--scalar-precision: '" + text + "' is not X or NAME=X with a number above 0");
      }
      if (!options.fit) options.fit = ks::FitSettings{};
      if (equals == std::string::npos) {
        options.fit->scalar_precision = precision;
      } else {
        const std::string name = text.substr(0, equals);
        if (!scalars_given.insert(name).second) {
          return usage_error("--scalar-precision: scalar track '" + ks::excerpt(name) + "' is given twice");
        }
        options.fit->scalar_precisions.push_back({name, precision});
      }
    } else if (arg == "--additive-base") {
      if (!value(text)) return usage_error("--additive-base needs first-frame, bind-pose or FILE[#ANIMATION]");
      ks::Result<ks::AdditiveBaseSpec> base = ks::parse_additive_base(text);
      if (!base) return usage_error("--additive-base: " + base.error());
      options.additive = std::move(base.value());
    } else if (arg == "--layer-alone") {
      options.viewport.layer_alone = true;
    } else if (arg == "--local") {
      if (!options.fit) options.fit = ks::FitSettings{};
      options.fit->error_mode = ks::ErrorMode::kLocal;
    } else if (arg == "--translation-error" || arg == "--rotation-error" || arg == "--scale-error") {
      float threshold = 0.f;
      if (!value(text) || !parse_threshold(text, &threshold)) {
        return usage_error(std::string(arg) + ": '" + text + "' is not a number above 0");
      }
      if (!options.fit) options.fit = ks::FitSettings{};
      if (arg == "--translation-error") options.fit->translation_error_m = threshold * 1e-3f;
      if (arg == "--rotation-error") options.fit->rotation_error_deg = threshold;
      if (arg == "--scale-error") options.fit->scale_error = threshold;
      per_kind_option = arg;
    } else if (arg == "--save-stream" || arg == "--export-glb") {
      if (!value(text) || text.empty()) return usage_error(std::string(arg) + " needs a file name");
      (arg == "--save-stream" ? options.save_stream : options.export_glb) = std::filesystem::path(text);
    } else if (arg == "--print-command") {
      options.print_command = true;
    } else if (arg == "--show-file-menu") {
      options.show_file_menu = true;
    } else if (arg == "--show-refitting") {
      options.show_refitting = true;
    } else if (arg == "--show-rd") {
      options.show_rd = true;
    } else if (arg == "--rd-click") {
      if (!value(text)) return usage_error("--rd-click needs a point index");
      char* end = nullptr;
      const unsigned long index = std::strtoul(text.c_str(), &end, 10);
      if (text.empty() || *end != '\0' || text[0] == '-' || index >= std::size(ks::studio::kSweepTolerances_m)) {
        return usage_error("--rd-click: '" + text + "' is not a point index, 0.." +
                           std::to_string(std::size(ks::studio::kSweepTolerances_m) - 1));
      }
      options.rd_click = static_cast<size_t>(index);
    } else if (arg == "--open-choose") {
      if (!value(text) || text.empty()) return usage_error("--open-choose needs a file name");
      options.open_choose = std::filesystem::path(text);
    } else if (arg == "--open-choose-animation") {
      char* end = nullptr;
      const long index = value(text) ? std::strtol(text.c_str(), &end, 10) : -1;
      if (text.empty() || *end != '\0' || index < 0 || index > 1000000) {
        return usage_error("--open-choose-animation: '" + text + "' is not an animation index");
      }
      options.open_choose_animation = static_cast<int>(index);
    } else if (arg == "--open-press") {
      options.open_press = true;
    } else if (arg == "--open-escape") {
      options.open_escape = true;
    } else if (arg == "--shaders") {
      if (!value(text)) return usage_error("--shaders needs a folder");
      options.shader_dir = text;
    } else if (arg == "--select") {
      if (!value(options.select)) return usage_error("--select needs a bone name or index");
    } else if (arg == "--select-curve") {
      if (!value(options.select_curve) || options.select_curve.empty()) {
        return usage_error("--select-curve needs a scalar track name or index");
      }
    } else if (arg == "--bone-filter") {
      if (!value(options.bone_filter)) return usage_error("--bone-filter needs a text");
    } else if (arg == "--curve-view") {
      if (!value(text) || (text != "quaternion" && text != "euler")) {
        return usage_error("--curve-view: '" + text + "' is not quaternion or euler");
      }
      options.curve_euler = text == "euler";
    } else if (arg == "--size") {
      if (!value(text)) return usage_error("--size needs WxH");
      int w = 0, h = 0;
      char extra = 0;
      if (std::sscanf(text.c_str(), "%dx%d%c", &w, &h, &extra) != 2 || w < 640 || h < 480 || w > 8192 || h > 8192) {
        return usage_error("--size: '" + text + "' is not WxH between 640x480 and 8192x8192");
      }
      options.width = w;
      options.height = h;
    } else if (!arg.empty() && arg[0] == '-') {
      return usage_error("unknown option '" + std::string(arg) + "'");
    } else {
      if (!have_clip) options.clip = std::string(arg);
      options.set_files.emplace_back(std::string(arg));
      have_clip = true;
    }
  }
  if (ks::Status s = options.import.validate(); !s) return usage_error(s.error());
  if (options.set_files.size() < 2) options.set_files.clear();  // one FILE: StudioApp::open_paths decides
  if (options.refit_tolerance_mm && options.play_seconds <= 0.f) {
    return usage_error("--refit-tolerance needs --simulate-play");
  }
  if (options.show_file_menu && !options.screenshot) return usage_error("--show-file-menu needs --screenshot");
  if (options.show_refitting && !options.screenshot) return usage_error("--show-refitting needs --screenshot");
  if (options.rd_click && (!options.show_rd || !options.screenshot)) {
    return usage_error("--rd-click needs --show-rd and --screenshot");
  }
  if ((options.open_press || options.open_escape || options.open_choose_animation != 0) && !options.open_choose) {
    return usage_error("--open-press, --open-escape and --open-choose-animation need --open-choose FILE");
  }
  if (options.fit) {
    const bool local = options.fit->error_mode == ks::ErrorMode::kLocal;
    if (!local && !per_kind_option.empty()) {
      return usage_error(per_kind_option + " sets a per-kind threshold of --local mode; the default object-space "
                         "mode takes --tolerance MM (add --local to fit per-kind thresholds)");
    }
    if (local && !tolerance_option.empty()) {
      return usage_error(tolerance_option + " sets the object-space tolerance, which --local mode does not use");
    }
    if (ks::Status s = options.fit->validate(); !s) return usage_error(s.error());
  }
  ks::studio::StudioApp app(options);
  return app.run();
}
