#pragma once
// The `keystream compress` command line that makes, byte for byte, the
// stream the studio would save: the source, the output, the import options
// that differ from the defaults and every codec setting that does, per-bone
// overrides included. Numbers are written with as few digits as still read
// back (through the command line's own unit conversions) to the very float
// the studio holds, so the fit, and so the stream, come out the same.

#include <filesystem>
#include <string>
#include <vector>

#include "app/studio/jobs/fit_job.h"
#include "keystream/io/additive_import.h"
#include "keystream/io/import.h"

namespace ks::studio {

struct CompressCommand {
  std::vector<std::string> args;  // "keystream", "compress", SOURCE, "-o", OUT, options...
  std::string text;               // the arguments quoted for a shell (shell_quote), joined by spaces
  /// Why the command would not reproduce the stream exactly (a setting the
  /// command line cannot spell); empty when it does.
  std::vector<std::string> caveats;
};

/// The command compressing `source` (imported with `import`, the animation
/// given by index) with `settings` into `output`, as an additive layer to
/// `additive` unless kNone. Paths are made absolute so the command runs
/// from any folder; a base file is spelled as given (the stream records it
/// so), with a caveat when that is not absolute.
CompressCommand compress_command(const std::filesystem::path& source, const ImportSettings& import,
                                 const CodecSettings& settings, const std::filesystem::path& output,
                                 const AdditiveBaseSpec& additive = {});

/// The command cooking every animation of `sources` (--all-animations) into
/// `output_folder` as the set's Save all names them, the object-space bound
/// read from `tolerance_file` (which must hold bone_tolerance_file_text of
/// `settings.fit`: a caveat says when it does not yet), every other setting
/// as options.
CompressCommand set_compress_command(const std::vector<std::filesystem::path>& sources, const ImportSettings& import,
                                     const CodecSettings& settings, const std::filesystem::path& output_folder,
                                     const std::filesystem::path& tolerance_file);

/// `arg` as one word of a shell: as it is when it holds only characters no
/// shell treats specially; in $'...' (bash, zsh, POSIX.1-2024) with \xHH
/// escapes when it holds a byte excerpt escapes; else in single quotes.
std::string shell_quote(const std::string& arg);

}  // namespace ks::studio
