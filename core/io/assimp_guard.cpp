#include "keystream/io/assimp_guard.h"

#include "keystream/clip/excerpt.h"
#include "keystream/io/assimp_collada_guard.h"
#include "keystream/io/assimp_fbx_curves.h"
#include "keystream/io/assimp_fbx_graph.h"
#include "keystream/io/assimp_zae.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace ks::assimp {

std::string at(size_t offset) {
  return " at byte " + std::to_string(offset);
}

std::string too_deep(size_t offset) {
  return "nested more than " + std::to_string(kMaxNesting) + " levels deep" + at(offset);
}

bool read_count(std::string_view bytes, size_t offset, uint64_t& out) {
  out = 0;
  size_t digits = 0;
  while (offset < bytes.size() && bytes[offset] >= '0' && bytes[offset] <= '9') {
    if (out > (UINT64_MAX - 9) / 10) return true;  // saturates: any such count is refused
    out = out * 10 + static_cast<uint64_t>(bytes[offset++] - '0');
    ++digits;
  }
  return digits > 0;
}

namespace {

constexpr std::string_view kFbxBinaryMagic{"Kaydara FBX Binary  \0", 21};
constexpr size_t kFbxHeaderBytes = 27;  // magic, two unknown bytes, uint32 version
constexpr std::string_view kCurveRecord{"AnimationCurve"};

// An FBX name for a message: "Name\0\1Model" as "Model::Name", each part
// quoted as every message quotes input (excerpt.h).
std::string printable(std::string_view name) {
  if (const size_t separator = name.find(std::string_view{"\0\1", 2}); separator != std::string_view::npos) {
    return excerpt(name.substr(separator + 2)) + "::" + excerpt(name.substr(0, separator));
  }
  return excerpt(name);
}

// Little-endian reads within `bytes`; false past its end.
bool read_u32(std::string_view bytes, size_t offset, uint64_t& out) {
  if (offset > bytes.size() || bytes.size() - offset < 4) return false;
  uint32_t v;
  std::memcpy(&v, bytes.data() + offset, 4);
  out = v;
  return true;
}

bool read_u64(std::string_view bytes, size_t offset, uint64_t& out) {
  if (offset > bytes.size() || bytes.size() - offset < 8) return false;
  std::memcpy(&out, bytes.data() + offset, 8);
  return true;
}

// The properties of one binary record, [offset, end): scalars, strings and
// arrays, each inside the record; arrays add their inflated size to `inflated`.
Status check_fbx_properties(std::string_view bytes, size_t& offset, size_t end, uint64_t count, uint64_t& inflated) {
  const std::string_view record = bytes.substr(0, end);
  for (uint64_t p = 0; p < count; ++p) {
    if (offset >= end) return Error{"binary FBX record property " + std::to_string(p) + " is cut off" + at(offset)};
    const char type = bytes[offset++];
    size_t size = 0;
    switch (type) {
      case 'C': size = 1; break;
      case 'Y': size = 2; break;
      case 'I':
      case 'F': size = 4; break;
      case 'D':
      case 'L': size = 8; break;
      case 'S':
      case 'R': {
        uint64_t length = 0;
        if (!read_u32(record, offset, length)) return Error{"binary FBX string is cut off" + at(offset)};
        size = 4 + static_cast<size_t>(length);
        break;
      }
      case 'f':
      case 'i':
      case 'd':
      case 'l':
      case 'b':
      case 'c': {
        uint64_t length = 0, encoding = 0, stored = 0;
        if (!read_u32(record, offset, length) || !read_u32(record, offset + 4, encoding) ||
            !read_u32(record, offset + 8, stored)) {
          return Error{"binary FBX array header is cut off" + at(offset)};
        }
        const uint64_t element = type == 'd' || type == 'l' ? 8 : type == 'f' || type == 'i' ? 4 : 1;
        const uint64_t bytes_needed = length * element;
        if (encoding == 0 ? bytes_needed != stored : bytes_needed > kMaxDeflateRatio * stored + 1024) {
          return Error{"binary FBX array of " + std::to_string(length) + " values cannot come from its " +
                       std::to_string(stored) + " stored bytes" + at(offset)};
        }
        inflated += bytes_needed;
        if (inflated > kMaxFbxArrayBytes) {
          return Error{"binary FBX arrays would take more than " + std::to_string(kMaxFbxArrayBytes >> 20) + " MiB" +
                       at(offset)};
        }
        size = 12 + static_cast<size_t>(stored);
        break;
      }
      default:
        return Error{"binary FBX property has unknown type " + std::to_string(static_cast<int>(type)) + at(offset - 1)};
    }
    if (size > end - offset) return Error{"binary FBX property runs past its record" + at(offset)};
    offset += size;
  }
  return {};
}

// The strings and 64-bit integers among the first four properties of a
// record, [offset, end), already checked: an object's id, name and type; a
// connection's kind, child, parent and property.
struct LeadingValues {
  std::vector<std::string_view> strings;
  std::vector<uint64_t> ids;
};

LeadingValues fbx_leading_values(std::string_view bytes, size_t offset, size_t end) {
  LeadingValues values;
  for (int p = 0; p < 4 && offset < end; ++p) {
    const char type = bytes[offset++];
    uint64_t length = 0;
    if (type == 'S' && read_u32(bytes.substr(0, end), offset, length) && length <= end - offset - 4) {
      values.strings.push_back(bytes.substr(offset + 4, static_cast<size_t>(length)));
      offset += 4 + static_cast<size_t>(length);
    } else if (type == 'L' && read_u64(bytes.substr(0, end), offset, length)) {
      values.ids.push_back(length);
      offset += 8;
    } else if (type == 'I') {
      offset += 4;
    } else {
      break;
    }
  }
  return values;
}

// The length of the array that is a record's first property (KeyTime's), 0 when it is none.
uint64_t first_array_length(std::string_view bytes, size_t offset, size_t end) {
  uint64_t length = 0;
  if (offset < end && std::strchr("fidlbc", bytes[offset]) != nullptr && bytes[offset] != '\0') {
    read_u32(bytes.substr(0, end), offset + 1, length);
  }
  return length;
}

// The record tree of a binary FBX, walked with an explicit stack.
Status check_fbx_binary(std::string_view bytes, FbxGraph& graph) {
  if (bytes.size() < kFbxHeaderBytes) return Error{"binary FBX header is cut off"};
  uint64_t version = 0;
  read_u32(bytes, 23, version);
  // From version 7500 the record header's three counts are 64-bit.
  const bool wide = version >= 7500;
  const size_t header = wide ? 25 : 13;
  std::vector<size_t> scope_ends;  // end offset of every record whose children are being walked
  size_t offset = kFbxHeaderBytes;
  uint64_t inflated = 0;
  // assimp 5.2 frees an animation's keys twice (a double free, found by
  // fuzzing) when two animated bones, LimbNode models of the Objects
  // section, share a name. (Other models may: real files repeat mesh names.)
  size_t objects_end = 0, connections_end = 0;
  bool in_curve = false;  // walking the children of an Objects AnimationCurve
  std::set<std::string_view> bones;
  double curve_half_turns = 0.0;  // assimp_fbx_curves.h
  while (true) {
    const size_t end = scope_ends.empty() ? bytes.size() : scope_ends.back();
    if (!scope_ends.empty() && offset == end) {
      scope_ends.pop_back();  // a nested list that ends without its null record: assimp says so
      continue;
    }
    if (scope_ends.empty() && offset == end) return {};
    if (end - offset < header) return Error{"binary FBX record header is cut off" + at(offset)};
    uint64_t record_end = 0, properties = 0, property_bytes = 0;
    if (wide) {
      read_u64(bytes, offset, record_end), read_u64(bytes, offset + 8, properties);
      read_u64(bytes, offset + 16, property_bytes);
    } else {
      read_u32(bytes, offset, record_end), read_u32(bytes, offset + 4, properties);
      read_u32(bytes, offset + 8, property_bytes);
    }
    const size_t name_length = static_cast<unsigned char>(bytes[offset + header - 1]);
    if (record_end == 0) {  // the null record closing a list
      offset += header;
      if (scope_ends.empty()) return {};  // the top level's: the footer follows
      if (offset != end) return Error{"binary FBX null record is not at the end of its list" + at(offset)};
      scope_ends.pop_back();
      continue;
    }
    if (record_end > bytes.size()) {
      return Error{"binary FBX is cut off: a record ends at byte " + std::to_string(record_end) + ", past the end (" +
                   std::to_string(bytes.size()) + " bytes)" + at(offset)};
    }
    if (record_end <= offset || record_end > end) {
      return Error{"binary FBX record ends at byte " + std::to_string(record_end) + ", outside its parent" +
                   at(offset)};
    }
    const size_t record_start = offset;
    offset += header;
    if (name_length > record_end - offset || property_bytes > record_end - offset - name_length) {
      return Error{"binary FBX record name or properties run past the record" + at(record_start)};
    }
    const std::string_view name = bytes.substr(offset, name_length);
    offset += name_length;
    const size_t properties_end = offset + static_cast<size_t>(property_bytes);
    const size_t properties_start = offset;
    if (Status s = check_fbx_properties(bytes, offset, properties_end, properties, inflated); !s) return s;
    if (name == "KeyValueFloat") {
      if (Status s = check_binary_key_values(bytes, properties_start, properties_end, curve_half_turns); !s) {
        return Error{s.error() + at(record_start)};
      }
    }
    if (scope_ends.empty() && name == "Objects") objects_end = static_cast<size_t>(record_end);
    if (scope_ends.empty() && name == "Connections") connections_end = static_cast<size_t>(record_end);
    const bool object = scope_ends.size() == 1 && scope_ends.back() == objects_end;
    if (object) in_curve = name == "AnimationCurve";
    if (object && (name == "Model" || name == "AnimationCurve" || name == "AnimationStack")) {
      const LeadingValues model = fbx_leading_values(bytes, properties_start, properties_end);
      if (name == "AnimationStack" && !model.strings.empty()) graph.add_stack(model.strings[0]);
      if (name == "AnimationCurve" && !model.ids.empty()) graph.add_curve(model.ids[0], record_start + header);
      if (name == "Model" && !model.ids.empty() && !model.strings.empty()) {
        graph.add_model(model.ids[0], model.strings[0]);
      }
      if (name == "Model" && model.strings.size() == 2 && model.strings[1] == "LimbNode" &&
          !bones.insert(model.strings[0]).second) {
        return Error{"binary FBX has two bones (LimbNode models) named '" + printable(model.strings[0]) + "'" +
                     at(record_start)};
      }
    }
    if (in_curve && name == "KeyTime" && scope_ends.size() == 2 && scope_ends.front() == objects_end) {
      graph.set_last_curve_keys(first_array_length(bytes, properties_start, properties_end));
    }
    if (scope_ends.size() == 1 && scope_ends.back() == connections_end && name == "C") {
      const LeadingValues link = fbx_leading_values(bytes, properties_start, properties_end);
      if (link.ids.size() == 2) {
        graph.add_link(link.ids[0], link.ids[1], link.strings.size() > 1 ? link.strings[1] : std::string_view{});
      }
    }
    if (offset != properties_end) {
      return Error{"binary FBX record's properties do not fill their declared length" + at(record_start)};
    }
    if (offset < record_end) {
      if (scope_ends.size() >= static_cast<size_t>(kMaxNesting))
        return Error{"binary FBX records are " + too_deep(offset)};
      scope_ends.push_back(static_cast<size_t>(record_end));
    }
  }
}

// The fields of an ASCII FBX entry after its colon, to the end of the line
// or its '{': quoted strings without their quotes, other fields trimmed.
std::vector<std::string_view> ascii_fields(std::string_view text, size_t colon) {
  std::vector<std::string_view> fields;
  size_t i = colon + 1;
  while (i < text.size() && text[i] != '\n' && text[i] != '{' && fields.size() < 8) {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t' || text[i] == ',')) ++i;
    if (i >= text.size() || text[i] == '\n' || text[i] == '\r' || text[i] == '{') break;
    if (text[i] == '"') {
      const size_t close = text.find_first_of("\"\n", i + 1);
      if (close == std::string_view::npos || text[close] != '"') break;
      fields.push_back(text.substr(i + 1, close - i - 1));
      i = close + 1;
    } else {
      const size_t stop = text.find_first_of(", \t\r\n{", i);
      fields.push_back(text.substr(i, (stop == std::string_view::npos ? text.size() : stop) - i));
      i = stop == std::string_view::npos ? text.size() : stop;
    }
  }
  return fields;
}

// A decimal id (FBX 7's object ids), false when `field` is none.
bool ascii_id(std::string_view field, uint64_t& id) {
  if (field.starts_with('-')) field.remove_prefix(1);  // ids are 64-bit and may be negative
  return !field.empty() && field.find_first_not_of("0123456789") == std::string_view::npos &&
         read_count(field, 0, id);
}

Status check_fbx_ascii(std::string_view bytes, FbxGraph& graph) {
  int depth = 0;
  bool in_string = false;
  bool line_start = true, objects_next = false, in_objects = false, connections_next = false, in_connections = false;
  bool in_curve = false;  // inside an Objects AnimationCurve
  std::set<std::string_view> bones;  // as in a binary FBX, no two bones of Objects may share a name
  double curve_half_turns = 0.0;      // assimp_fbx_curves.h
  for (size_t i = 0; i < bytes.size(); ++i) {
    const char c = bytes[i];
    const bool first_on_line = line_start && !in_string && c != ' ' && c != '\t' && c != '\r' && c != '\n';
    line_start = c == '\n' || (line_start && !first_on_line);
    if (first_on_line && bytes.substr(i).starts_with("KeyValueFloat:")) {
      if (Status s = check_ascii_key_values(bytes, i, curve_half_turns); !s) return Error{s.error() + at(i)};
    }
    if (first_on_line && depth <= 2) {
      const size_t colon = bytes.find_first_of(":\n", i);
      const std::string_view key = bytes.substr(i, colon == std::string_view::npos ? 0 : colon - i);
      const bool entry = colon != std::string_view::npos && bytes[colon] == ':';
      if (depth == 0) objects_next = key == "Objects", connections_next = key == "Connections";
      if (depth == 1 && in_objects) in_curve = key == "AnimationCurve";
      if (depth == 1 && in_objects && entry && (key == "Model" || key == "AnimationCurve" || key == "AnimationStack")) {
        // Model: id, "Model::name", "type" {
        const std::vector<std::string_view> fields = ascii_fields(bytes, colon);
        uint64_t id = 0;
        const bool has_id = !fields.empty() && ascii_id(fields[0], id);
        if (key == "AnimationStack" && has_id && fields.size() >= 2) graph.add_stack(fields[1]);
        if (key == "AnimationCurve" && has_id) graph.add_curve(id, i);
        if (key == "Model" && has_id && fields.size() >= 2) graph.add_model(id, fields[1]);
        const size_t first_string = has_id ? 1 : 0;
        if (key == "Model" && fields.size() >= first_string + 2 && fields[first_string + 1] == "LimbNode" &&
            !bones.insert(fields[first_string]).second) {
          return Error{"ASCII FBX has two bones (LimbNode models) named '" + printable(fields[first_string]) + "'" +
                       at(i)};
        }
      }
      if (depth == 2 && in_objects && in_curve && entry && key == "KeyTime") {
        // KeyTime: *N {
        const std::vector<std::string_view> fields = ascii_fields(bytes, colon);
        uint64_t keys = 0;
        if (!fields.empty() && fields[0].starts_with('*')) read_count(fields[0], 1, keys);
        graph.set_last_curve_keys(keys);
      }
      if (depth == 1 && in_connections && entry && key == "C") {
        // C: "OO", child, parent[, "property"]
        const std::vector<std::string_view> fields = ascii_fields(bytes, colon);
        uint64_t child = 0, parent = 0;
        if (fields.size() >= 3 && ascii_id(fields[1], child) && ascii_id(fields[2], parent)) {
          graph.add_link(child, parent, fields.size() > 3 ? fields[3] : std::string_view{});
        }
      }
    }
    if (in_string) {
      in_string = c != '"';
    } else if (c == '"') {
      in_string = true;
    } else if (c == ';') {  // comment to the end of the line
      while (i < bytes.size() && bytes[i] != '\n') ++i;
      line_start = true;
    } else if (c == '{') {
      if (++depth > kMaxNesting) return Error{"ASCII FBX braces are " + too_deep(i)};
      if (depth == 1) in_objects = objects_next, in_connections = connections_next;
    } else if (c == '}') {
      if (--depth == 0) in_objects = in_connections = false;
    } else if (c == '*') {
      uint64_t count;
      if (read_count(bytes, i + 1, count) && count > bytes.size()) {
        return Error{"ASCII FBX array declares " + std::to_string(count) + " values, more than the file can hold" +
                     at(i)};
      }
    }
  }
  return {};
}

Status check_fbx(std::string_view bytes, std::string& rewritten, uint64_t max_bone_frames,
                 GuardFindings* findings) {
  FbxGraph graph;
  const bool binary = bytes.starts_with(kFbxBinaryMagic);
  if (Status s = binary ? check_fbx_binary(bytes, graph) : check_fbx_ascii(bytes, graph); !s) return s;
  if (Status s = graph.check(max_bone_frames); !s) return s;
  const size_t empty = graph.empty_curve_count();
  if (empty == 0) return {};
  // assimp 5.2 crashes on a curve without keys: each is renamed, in place,
  // to an object type assimp skips, and its channel stays unanimated.
  rewritten.assign(bytes);
  for (const size_t record : graph.empty_curve_records()) {
    if (rewritten.compare(record, kCurveRecord.size(), kCurveRecord) == 0) rewritten[record + kCurveRecord.size() - 1] = 'X';
  }
  if (findings != nullptr) {
    const std::vector<std::string> targets = graph.empty_curve_targets(4);
    std::string named;
    for (const std::string& target : targets) named += (named.empty() ? "" : ", ") + target;
    findings->still_takes = graph.still_takes();
    findings->warnings.push_back(std::to_string(empty) + " FBX animation curve" + (empty == 1 ? " has" : "s have") +
                        " no keys (" + named + (empty > targets.size() ? ", ..." : "") +
                        "); what they animate keeps its rest pose");
  }
  return {};
}

}  // namespace

Status check_input(std::string_view bytes, std::string_view ext, std::string& rewritten, uint64_t max_bone_frames,
                   GuardFindings* findings) {
  rewritten.clear();
  if (bytes.empty()) return Error{"the file is empty"};
  if (bytes.size() > kMaxInputBytes) {
    return Error{"the file is " + std::to_string(bytes.size() >> 20) + " MiB, more than the " +
                 std::to_string(kMaxInputBytes >> 20) + " MiB an FBX or Collada file may have"};
  }
  if (ext == ".fbx") return check_fbx(bytes, rewritten, max_bone_frames, findings);
  if (ext != ".zae") return check_collada(bytes, rewritten);
  Result<std::string> document = read_zae_document(bytes);
  if (!document) return Error{document.error()};
  if (document.value().empty()) return Error{"the .zae's Collada document is empty"};
  if (Status s = check_collada(document.value(), rewritten); !s) {
    return Error{"the .zae's Collada document: " + s.error()};
  }
  if (rewritten.empty()) rewritten = std::move(document.value());
  return {};
}

}  // namespace ks::assimp
