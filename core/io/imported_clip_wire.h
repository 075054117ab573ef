#pragma once
// An import's result as bytes, for the pipe from the child process that runs
// a third-party reader (import_sandbox.h) back to the tool. Written and read
// by the same build on the same machine, so values are native; the reader
// still checks every count against the bytes left, because the writer is the
// process that may have been corrupted by a hostile file.

#include <filesystem>
#include <string>
#include <string_view>

#include "keystream/io/import.h"
#include "keystream/runtime/result.h"

namespace ks {

/// `imported` (or its error) as one message.
std::string encode_import_result(const Result<ImportedClip>& imported);

/// The result `bytes` encodes; `well_formed` says whether they were a whole
/// message (the result may still be the import's error). A message that is
/// cut off, too long or inconsistent is an error saying so. The clip is not
/// validated here (check_imported does that).
Result<ImportedClip> decode_import_result(std::string_view bytes, bool& well_formed);

/// A request to the import worker (import_sandbox.h): the file and the settings.
std::string encode_import_request(const std::filesystem::path& path, const ImportSettings& settings);

/// The request `bytes` encodes; false when they are not a whole one.
bool decode_import_request(std::string_view bytes, std::filesystem::path& path, ImportSettings& settings);

}  // namespace ks
