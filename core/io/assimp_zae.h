#pragma once
// The Collada document inside a .zae file, a zip archive (internal to the
// assimp importer). assimp 5.2 would open the archive itself, but then the
// guard (assimp_guard.h) could not see the document before assimp parses it;
// so the document is inflated here, within bounds, checked, and handed to
// assimp's Collada loader as a .dae.

#include <string>
#include <string_view>

#include "keystream/runtime/result.h"

namespace ks::assimp {

/// The Collada document of the zip archive `zip`: the entry its
/// manifest.xml's <dae_root> names, or without a manifest the first entry
/// (in name order) ending in .dae, as assimp chooses. The central directory
/// is checked before anything is inflated: every entry inside the file, the
/// sizes its entries claim no more than kMaxInputBytes in all, none more than
/// deflate can make of its stored bytes (kMaxDeflateRatio); no Zip64,
/// encrypted or multi-disk archives, and only stored or deflated entries
/// are read. An entry inflates to exactly its claimed size and CRC-32.
Result<std::string> read_zae_document(std::string_view zip);

}  // namespace ks::assimp
