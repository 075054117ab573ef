#pragma once
// What an FBX or Collada file must pass before assimp parses it (internal to
// the assimp importer). assimp trusts its input: its FBX and Collada parsers
// recurse once per nesting level and reserve what counts declare, so a small
// file nested a few thousand levels deep, or declaring a billion values,
// can overflow the stack or ask for gigabytes. These checks walk the bytes
// once, without recursion, and refuse such files with a message saying
// where; a file that passes may still be refused by assimp itself.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "keystream/io/import.h"
#include "keystream/runtime/result.h"

namespace ks::assimp {

/// Largest FBX or Collada file imported, bytes (256 MiB): assimp holds the
/// bytes, its parse tree and the scene at once.
inline constexpr size_t kMaxInputBytes = size_t{256} << 20;
/// Deepest nesting of FBX records or XML elements (real files stay under 20).
inline constexpr int kMaxNesting = 256;
/// Most bytes the arrays of a binary FBX may inflate to, in all (192 MiB),
/// and the most one deflated array may inflate to per stored byte (deflate
/// cannot do better than 1032:1).
inline constexpr uint64_t kMaxFbxArrayBytes = uint64_t{192} << 20;
inline constexpr uint64_t kMaxDeflateRatio = 1032;

/// Checks `bytes`, the contents of a file with extension `ext` (".fbx",
/// ".dae" or ".zae", lower case): not empty, at most kMaxInputBytes; a .zae's
/// Collada document read out of the archive (assimp_zae.h) and checked as a
/// .dae file is; a binary FBX's
/// records inside the file, nested at most kMaxNesting deep, its arrays
/// within what their stored bytes can hold and kMaxFbxArrayBytes in all;
/// an ASCII FBX's braces nested at most kMaxNesting deep and every array
/// count ("*N") no more than the file's size; a Collada file's XML elements
/// nested at most kMaxNesting deep, every count="N" attribute no more than
/// the file's size (each value takes at least a byte of text), and nothing
/// but digits and spaces in the index lists <p>, <v>, <vcount> and <h>
/// (assimp 5.2 loops forever on anything else there), and every skin's
/// <vertex_weights> consistent, which assimp 5.2 assumes without checking:
/// its count no less than the positions of the geometry it binds, <vcount>
/// holding count numbers, <v> one index per input for each influence they
/// sum to, and no joint or weight index past its source's accessor (or the
/// joint names array); every Collada <accessor>'s offset + count × stride
/// within the count of the array it names (assimp 5.2 reads past it, and
/// reads an array without a count as empty); every <polylist>'s <vcount>
/// listing at least its count of polygon sizes (assimp 5.2 reads them
/// unchecked); no <channel> target without a '/' containing the id of a
/// node without a transform, nor a morph-weights target with a '/' (assimp
/// 5.2 writes past the node's transforms); and,
/// in an FBX, no two bones (LimbNode models) of
/// one name (assimp 5.2 frees their animation keys twice); an FBX's models
/// and curves within the bounds of assimp_fbx_graph.h (count, depth, keys
/// for `max_bone_frames`), a curve without keys hidden from assimp (which
/// crashes on it) with a warning added to `findings`. `rewritten`
/// receives the bytes assimp must read instead of `bytes` when they differ
/// (always for a .zae: its Collada document, which assimp reads as a .dae;
/// a Collada list of numbers that starts with whitespace, which assimp 5.2
/// misreads, loses it: assimp_collada_guard.h), and is left empty otherwise.
Status check_input(std::string_view bytes, std::string_view ext, std::string& rewritten,
                   uint64_t max_bone_frames = kDefaultMaxBoneFrames, struct GuardFindings* findings = nullptr);

/// What the checks found that the import must know.
struct GuardFindings {
  std::vector<std::string> warnings;
  /// Takes (FBX animation stacks) whose every curve has no key: assimp
  /// drops them; the import keeps them as still clips of the rest pose.
  std::vector<std::string> still_takes;
};

// Shared by the format checks.

/// " at byte N", for a message.
std::string at(size_t offset);
/// "nested more than kMaxNesting levels deep at byte N".
std::string too_deep(size_t offset);
/// A decimal count starting at `offset` into `out` (saturating); false when there is none.
bool read_count(std::string_view bytes, size_t offset, uint64_t& out);

}  // namespace ks::assimp
