#pragma once
// Parsing of BVH text (internal to the BVH importer): the HIERARCHY into
// joints and End Sites with their channels, and the MOTION into checked frame
// lines. Nothing is converted here: offsets stay in file units and channel
// values in the text until the importer reads them into tracks.

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "keystream/runtime/result.h"

namespace ks::bvh {

/// Most channels a joint can have: three positions and three rotations.
inline constexpr size_t kMaxJointChannels = 6;

/// One value of a joint's motion, as named in CHANNELS.
enum class Channel : uint8_t { kXposition, kYposition, kZposition, kXrotation, kYrotation, kZrotation };

/// True for the three position channels.
bool is_position(Channel c);

/// Axis of a channel: 0 for X, 1 for Y, 2 for Z.
size_t axis_of(Channel c);

/// A ROOT or JOINT: its OFFSET, and its channels in the order CHANNELS lists them.
struct JointDecl {
  std::string name;
  int32_t parent = -1;             // index of the enclosing joint, -1 for a ROOT
  std::array<double, 3> offset{};  // file units
  bool has_offset = false;
  bool has_channels = false;
  std::array<Channel, kMaxJointChannels> channels{};
  size_t channel_count = 0;
  size_t first_column = 0;  // of this joint's channels in a motion line
  size_t line = 0;          // of the ROOT or JOINT keyword
};

/// An End Site: a leaf tip with an OFFSET and no channels.
struct EndSiteDecl {
  int32_t parent = -1;
  std::array<double, 3> offset{};  // file units
  bool has_offset = false;
};

/// The HIERARCHY section: joints parents before children, in file order.
struct Hierarchy {
  std::vector<JointDecl> joints;
  std::vector<EndSiteDecl> end_sites;
  size_t column_count = 0;  // numbers per motion line
};

/// One motion line: its text and number, kept to be read again once validated.
struct FrameLine {
  std::string_view text;
  size_t line = 0;
};

/// A parsed BVH text. The frame lines are views into the text, which must
/// outlive the document.
struct Document {
  Hierarchy hierarchy;
  double frame_time_s = 0.0;      // "Frame Time:", positive seconds whose inverse is a finite float
  std::vector<FrameLine> frames;  // complete frames, at least one; empty lines when no joint has channels
  size_t end_line = 0;            // where the motion ends (at least 1), for messages about the whole motion
};

/// The name of the input and the warnings of one import. Every message
/// starts with the name.
struct Diagnostics {
  std::string source;
  std::vector<std::string> warnings;  // in the order found

  /// The refusal "<source>: line <line>: <what>".
  Error error(size_t line, const std::string& what) const;
  /// Adds the warning "<source>: <what>".
  void warn(const std::string& what);
};

/// Parses BVH text (a UTF-8 byte order mark is skipped). Refuses, naming the
/// line, anything that is not a well-formed hierarchy and motion: unbalanced
/// braces, nesting deeper than 1000, more than 65535 joints or frames,
/// malformed statements, non-finite numbers, motion lines with more or
/// fewer values than the channels (except an incomplete last line, which is
/// dropped with a warning), no complete frame; and text larger than 1 GiB.
/// A "Frames:" count that disagrees with the motion lines is a warning.
Result<Document> parse_document(std::string_view text, Diagnostics& diagnostics);

/// Reads the numbers of a frame line that parse_document accepted into
/// `values` (hierarchy.column_count of them).
Status read_frame(const FrameLine& frame, std::span<double> values, const Diagnostics& diagnostics);

}  // namespace ks::bvh
