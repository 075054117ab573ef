#pragma once
// Command-line parsing shared by the keystream commands: a cursor over the
// arguments and the option groups several commands accept (import, codec).
// Every refusal prints "keystream COMMAND: what is wrong" and returns false.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "keystream/codec/fit.h"
#include "keystream/codec/pack.h"
#include "keystream/io/additive_import.h"
#include "keystream/io/import.h"

namespace ks::cli {

/// The arguments of one command, consumed left to right.
class Arguments {
 public:
  Arguments(std::string command, std::vector<std::string_view> args)
      : m_command(std::move(command)), m_args(std::move(args)) {}

  bool done() const { return m_index >= m_args.size(); }
  std::string_view peek() const { return m_args[m_index]; }
  std::string_view next() { return m_args[m_index++]; }
  /// The value after option `option`; false (with a message) when missing.
  bool value(std::string_view option, std::string_view& out);
  /// The value after `option` as a finite number.
  bool number(std::string_view option, float& out);
  /// The value after `option` as a whole number in [lo, hi].
  bool whole_number(std::string_view option, long lo, long hi, long& out);
  /// Takes `arg`, which no option matched, as the one input (named `what` in
  /// messages); refuses (with a message) an unknown option or a second input.
  bool source(std::string_view arg, std::filesystem::path& out, std::string_view what = "SOURCE");
  /// Prints "keystream COMMAND: message" to stderr, made printable and at
  /// most kMessageExcerptChars long (excerpt); returns false.
  bool fail(const std::string& message) const;
  const std::string& command() const { return m_command; }

 private:
  std::string m_command;
  std::vector<std::string_view> m_args;
  size_t m_index = 0;
  bool m_have_source = false;
};

/// Import options: --animation, --sample-rate, --bvh-unit-scale. Returns
/// true when `arg` was one of them (and consumed its value).
bool parse_import_option(Arguments& args, std::string_view arg, ImportSettings& settings, bool& ok);

/// --additive-base first-frame|bind-pose|FILE[#ANIMATION] (a base file must
/// exist). Returns true when `arg` was it; `ok` false (with a message) for a
/// bad value.
bool parse_additive_option(Arguments& args, std::string_view arg, std::optional<AdditiveBaseSpec>& spec, bool& ok);

/// Where an override (a bone tolerance, a scalar precision) came from: the
/// option that gave it, and for a file its line, so that messages can say
/// "--bone-tolerances hands.txt:3".
struct OverrideOrigin {
  uint32_t option = 0;  // index into CodecOptions::override_options
  uint32_t line = 0;    // line of the file, from 1; 0 for a flag
};

/// What the codec options of one command line set, and which option set
/// each, so that the checks after parsing can name the option at fault.
struct CodecOptions {
  FitSettings fit;
  PackSettings pack = tool_pack_settings();  // --jump-interval auto unless a number is given
  std::string per_kind_option;   // the last local-mode threshold option given; empty when none
  std::string tolerance_option;  // the last object-space option given; empty when none
  /// The override options given, as messages name them: "--bone-tolerance",
  /// "--bone-tolerances FILE", "--scalar-precision", "--scalar-precisions FILE".
  std::vector<std::string> override_options;
  /// One per fit.bone_tolerances entry: where it came from.
  std::vector<OverrideOrigin> bone_tolerance_origins;
  /// One per fit.scalar_precisions entry: where it came from.
  std::vector<OverrideOrigin> scalar_precision_origins;
  /// Where the clip-wide "*=MM[@CM]" bone tolerance came from; none when not given.
  std::optional<OverrideOrigin> clip_wide_origin;

  /// "--bone-tolerances hands.txt:3": `o` as messages name it.
  std::string origin(OverrideOrigin o) const;
};

/// Error-bound options: --tolerance MM, --shell-distance CM, --bone-tolerance
/// NAME=MM[@CM] (repeatable; NAME * sets the first two), --bone-tolerances FILE, --local with
/// --translation-error MM, --rotation-error DEG, --scale-error X, and the
/// scalar tracks' --scalar-precision X|NAME=X (repeatable) and
/// --scalar-precisions FILE. Returns true when `arg` was one of them; `ok`
/// is false (with a message naming the option) for a bad value.
bool parse_tolerance_option(Arguments& args, std::string_view arg, CodecOptions& codec, bool& ok);

/// The error-bound options above and --split largest-error|midpoint,
/// --discontinuity-ratio R, --jump-interval S.
bool parse_codec_option(Arguments& args, std::string_view arg, CodecOptions& codec, bool& ok);

/// After the last option: refuses per-kind thresholds without --local,
/// tolerances with it, and a bone (or scalar track) given two overrides
/// (false, with a message naming the options).
bool finish_codec_options(Arguments& args, const CodecOptions& codec);

/// Refuses (false) overrides naming bones `skeleton` (of `source`) does not
/// have: one is named with the option it came from; of more, the first
/// kUnknownNamesQuoted (core/io/override_file.h) are, and the rest counted.
bool check_bone_tolerances(Arguments& args, const CodecOptions& codec, const Skeleton& skeleton,
                           const std::string& source);

/// The same for scalar precisions naming tracks that `clip` (animation
/// clip.name of `source`) does not have.
bool check_scalar_precisions(Arguments& args, const CodecOptions& codec, const RawClip& clip,
                             const std::string& source);

/// The source files named by `inputs`: files as given, folders searched
/// recursively for .gltf, .glb, .bvh, .fbx, .dae and .zae files (in name order). False, with a
/// message naming the input, for one that does not exist or a folder that
/// holds no clip. `any_folder` tells whether an input was a folder.
bool collect_sources(Arguments& args, const std::vector<std::filesystem::path>& inputs,
                     std::vector<std::filesystem::path>& sources, bool& any_folder);

/// Help text for the option groups above: import, error bound (tolerance
/// and local mode), and the rest of the codec's options.
extern const char* const kImportOptionsHelp;
extern const char* const kToleranceOptionsHelp;
extern const char* const kCodecOptionsHelp;
extern const char* const kAdditiveOptionHelp;

}  // namespace ks::cli
