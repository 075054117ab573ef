#pragma once
// The checks a Collada document must pass before assimp parses it, and the
// one change it may need first (internal to the assimp importer; the rules
// and their reasons are listed at check_input, assimp_guard.h).

#include <cstddef>
#include <string>
#include <string_view>

#include "keystream/runtime/result.h"

namespace ks::assimp {

/// Most <node> elements a Collada file may hold, as many as an FBX's models (assimp_fbx_graph.h).
inline constexpr size_t kMaxColladaNodes = 16384;

/// Checks the Collada document `bytes` in one pass without recursion. A
/// list of numbers that starts with whitespace (which XML allows and assimp
/// 5.2 misreads) makes `rewritten` a copy of `bytes` without that whitespace,
/// the bytes assimp must read instead; otherwise `rewritten` is left empty.
/// The checks read the numbers as assimp then does; offsets in messages are
/// those of `bytes`.
Status check_collada(std::string_view bytes, std::string& rewritten);

}  // namespace ks::assimp
