#include "keystream/io/assimp_collada_guard.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "keystream/io/assimp_guard.h"

namespace ks::assimp {

namespace {

// What a list of numbers holds: digits, signs, points, exponents, spaces.
constexpr std::string_view kNumberText = "0123456789+-.eE \t\r\n";

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

// The value of attribute `name` in `tag` (from '<' to before '>'), unquoted;
// empty when it has none.
std::string_view attribute(std::string_view tag, std::string_view name) {
  for (size_t p = tag.find(name); p != std::string_view::npos; p = tag.find(name, p + 1)) {
    if (p == 0 || !is_space(tag[p - 1])) continue;
    size_t q = p + name.size();
    while (q < tag.size() && is_space(tag[q])) ++q;
    if (q >= tag.size() || tag[q] != '=') continue;
    for (++q; q < tag.size() && is_space(tag[q]);) ++q;
    if (q >= tag.size() || (tag[q] != '"' && tag[q] != '\'')) continue;
    const size_t end = tag.find(tag[q], q + 1);
    return end == std::string_view::npos ? std::string_view{} : tag.substr(q + 1, end - q - 1);
  }
  return {};
}

// A local URL ("#id") without its '#'.
std::string_view local_id(std::string_view url) {
  return url.starts_with('#') ? url.substr(1) : url;
}

std::optional<uint64_t> attribute_count(std::string_view tag, std::string_view name) {
  uint64_t count;
  if (!read_count(attribute(tag, name), 0, count)) return std::nullopt;
  return count;
}

// The counts a Collada file declares against what it holds, gathered in one
// pass and compared at its end (a controller may come before its geometry).
// assimp 5.2 trusts them all (each a NULL or wild read found by fuzzing):
// - an accessor's values are read from its array unchecked; an array without
//   a count attribute holds none for assimp, whatever its text;
// - a <polylist count="N"> reads N polygon sizes from its <vcount>, which may
//   be missing or shorter;
// - a mesh vertex's weights are looked up by its position index among
//   <vertex_weights count> entries, <v> is walked by the sums of <vcount>,
//   and each weight is filed under the bone its joint index names.
class ColladaCounts {
 public:
  // An element opened: `name`, its start tag and, for a list, its text.
  void open(std::string_view name, std::string_view tag, size_t tag_offset, std::string_view text) {
    const int depth = depth_++;
    if (name == "node") {
      nodes_.push_back({std::string(attribute(tag, "id")), false});
      node_stack_.push_back({nodes_.size() - 1, depth});
    } else if (!node_stack_.empty() && node_stack_.back().depth + 1 == depth &&
               (name == "matrix" || name == "translate" || name == "rotate" || name == "scale" || name == "lookat" ||
                name == "skew")) {
      nodes_[node_stack_.back().node].transformed = true;
    } else if (name == "channel") {
      channels_.push_back({std::string(attribute(tag, "target")), tag_offset});
    }
    if (name.ends_with("_array")) {
      // assimp reads "count" as 0 when it is missing or no number.
      arrays_[std::string(attribute(tag, "id"))] = attribute_count(tag, "count").value_or(0);
    } else if (name == "accessor") {
      accessors_.push_back({std::string(local_id(attribute(tag, "source"))), attribute_count(tag, "count").value_or(0),
                            attribute_count(tag, "stride").value_or(1), attribute_count(tag, "offset").value_or(0),
                            tag_offset});
    }
    if (name == "source") {
      source_ = std::string(attribute(tag, "id"));
    } else if (name == "accessor") {
      if (const auto count = attribute_count(tag, "count")) sources_[source_].accessor = *count;
    } else if (name.ends_with("_array")) {
      sources_[source_].array = attribute_count(tag, "count").value_or(0);
    } else if (name == "polylist") {
      polylists_.push_back({attribute_count(tag, "count").value_or(0), 0, tag_offset});
      in_polylist_ = true;
    } else if (name == "vcount" && in_polylist_) {
      for_each_number(text, [&](uint64_t, uint64_t) { ++polylists_.back().sizes; });
    } else if (name == "geometry") {
      geometry_ = std::string(attribute(tag, "id"));
    } else if (name == "vertices") {
      in_vertices_ = true;
    } else if (name == "controller") {
      controller_ = std::string(attribute(tag, "id"));
    } else if (name == "skin") {
      Skin& skin = skins_.emplace_back();
      skin.controller = controller_;
      skin.geometry = local_id(attribute(tag, "source"));
      in_skin_ = true;
    } else if (name == "vertex_weights" && in_skin_) {
      Skin& skin = skins_.back();
      skin.at = tag_offset;
      skin.weights = attribute_count(tag, "count").value_or(0);
      in_weights_ = true;
    } else if (name == "input" && in_vertices_ && attribute(tag, "semantic") == "POSITION") {
      positions_[geometry_] = std::string(local_id(attribute(tag, "source")));
    } else if (name == "input" && in_weights_) {
      Skin& skin = skins_.back();
      ++skin.inputs;
      const std::string_view semantic = attribute(tag, "semantic");
      const uint64_t offset = attribute_count(tag, "offset").value_or(0);
      if (semantic == "JOINT") skin.joint = {std::string(local_id(attribute(tag, "source"))), offset};
      if (semantic == "WEIGHT") skin.weight = {std::string(local_id(attribute(tag, "source"))), offset};
    } else if (name == "vcount" && in_weights_) {
      Skin& skin = skins_.back();
      for_each_number(text, [&](uint64_t, uint64_t n) {
        ++skin.vcounts;
        skin.pairs = saturating_add(skin.pairs, n);
      });
    } else if (name == "v" && in_weights_) {
      Skin& skin = skins_.back();
      const uint64_t stride = std::max<uint64_t>(skin.inputs, 1);
      for_each_number(text, [&](uint64_t index, uint64_t n) {
        ++skin.values;
        if (index % stride == skin.joint.offset) skin.joint.largest = std::max(skin.joint.largest, n + 1);
        if (index % stride == skin.weight.offset) skin.weight.largest = std::max(skin.weight.largest, n + 1);
      });
    }
  }

  void close(std::string_view name) {
    --depth_;
    if (name == "node" && !node_stack_.empty()) node_stack_.pop_back();
    if (name == "vertices") in_vertices_ = false;
    if (name == "polylist") in_polylist_ = false;
    if (name == "skin") in_skin_ = in_weights_ = false;
    if (name == "vertex_weights") in_weights_ = false;
  }

  Status check() const {
    if (Status s = check_channels(); !s) return s;
    // assimp 5.2 reads an accessor's values from its array without checking
    // that the array holds them (a wild read, found by fuzzing: a float4x4
    // from an array of 8 values).
    for (const Accessor& a : accessors_) {
      const auto array = arrays_.find(a.array);
      if (array == arrays_.end() || a.count == 0) continue;  // assimp refuses an unknown array itself
      const uint64_t needed = saturating_add(a.offset, saturating_mul(a.count, a.stride));
      if (needed > array->second) {
        return Error{"Collada accessor reads " + std::to_string(a.count) + " values of stride " +
                     std::to_string(a.stride) + " from array '" + a.array.substr(0, 200) + "', which holds " +
                     std::to_string(array->second) + at(a.at)};
      }
    }
    for (const Polylist& p : polylists_) {
      if (p.sizes < p.polygons) {
        return Error{"Collada <polylist> declares " + std::to_string(p.polygons) + " polygons but its <vcount> lists " +
                     std::to_string(p.sizes) + " sizes" + at(p.at)};
      }
    }
    for (const Skin& skin : skins_) {
      if (skin.at == std::string_view::npos) continue;  // no <vertex_weights>: assimp binds no weights
      const std::string of = "Collada skin of controller '" + skin.controller + "'";
      const std::string where = at(skin.at);
      if (const uint64_t vertices = positions(skin.geometry); skin.weights < vertices) {
        return Error{of + " weighs " + std::to_string(skin.weights) + " vertices (<vertex_weights count>), fewer " +
                     "than the " + std::to_string(vertices) + " positions of its geometry '" + skin.geometry + "'" +
                     where};
      }
      if (skin.vcounts != skin.weights) {
        return Error{of + ": its <vertex_weights> count is " + std::to_string(skin.weights) +
                     " but its <vcount> lists " + std::to_string(skin.vcounts) + " vertices" + where};
      }
      if (skin.values != saturating_mul(skin.pairs, std::max<uint64_t>(skin.inputs, 1))) {
        return Error{of + ": its <v> holds " + std::to_string(skin.values) + " indices, not the " +
                     std::to_string(skin.pairs) + " influences its <vcount> sums to, " + std::to_string(skin.inputs) +
                     " each" + where};
      }
      for (const Input* input : {&skin.joint, &skin.weight}) {
        const uint64_t size = values(input->source, input == &skin.joint);
        if (input->largest > size) {
          return Error{of + ": its <v> names " + (input == &skin.joint ? "joint" : "weight") + " " +
                       std::to_string(input->largest - 1) + " of the " + std::to_string(size) + " in source '" +
                       input->source + "'" + where};
        }
      }
    }
    return {};
  }

 private:
  struct Source {
    std::optional<uint64_t> accessor, array;
  };
  struct Input {
    std::string source;
    uint64_t offset = 0;
    uint64_t largest = 0;  // largest index named, plus one (0: none)
  };
  struct Skin {
    std::string controller, geometry;
    size_t at = std::string_view::npos;  // the <vertex_weights> tag
    uint64_t weights = 0, inputs = 0, vcounts = 0, pairs = 0, values = 0;
    Input joint, weight;
  };

  // assimp 5.2 applies a <channel> whose target has no '/' to every node
  // whose id the target contains (and every node without an id), writing
  // its values into the node's first transform: past the end of a node
  // that has none. A morph-weights target with a '/' writes at index
  // SIZE_MAX. Both crash (found by probing morph-weight channels).
  Status check_channels() const {
    std::vector<const Node*> bare;  // nodes without a transform
    for (const Node& node : nodes_) {
      if (!node.transformed) bare.push_back(&node);
    }
    uint64_t checks = 0;
    for (const Channel& channel : channels_) {
      const size_t slash = channel.target.find('/');
      const std::string target = "Collada <channel> target '" + channel.target.substr(0, 200) + "'";
      if (slash != std::string::npos) {
        if (channel.target.find("morph-weights", slash) == std::string::npos) continue;
        return Error{target + " names morph weights after a '/', which assimp 5.2 cannot read (it crashes)" +
                     at(channel.at)};
      }
      if ((checks += bare.size()) > kMaxChannelChecks) {
        return Error{"the Collada file has too many channels without a '/' and nodes without a transform to check" +
                     at(channel.at)};
      }
      for (const Node* node : bare) {
        if (channel.target.find(node->id) == std::string::npos) continue;
        return Error{target + " applies to node '" + node->id.substr(0, 200) +
                     "', which has no transform for assimp 5.2 to write it into (it crashes)" + at(channel.at)};
      }
    }
    return {};
  }

  static uint64_t saturating_add(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }
  static uint64_t saturating_mul(uint64_t a, uint64_t b) { return b != 0 && a > UINT64_MAX / b ? UINT64_MAX : a * b; }

  // Calls f(index, value) for each number of an index list (only digits and
  // spaces: checked before).
  template <typename F>
  static void for_each_number(std::string_view text, F&& f) {
    uint64_t index = 0;
    for (size_t i = 0; i < text.size();) {
      if (is_space(text[i])) {
        ++i;
        continue;
      }
      uint64_t n;
      read_count(text, i, n);
      while (i < text.size() && !is_space(text[i])) ++i;
      f(index++, n);
    }
  }

  // How many positions the geometry `id` has: its <vertices>' POSITION
  // source's accessor count (assimp refuses a larger position index); 0 when
  // unknown (assimp then fails on its own).
  uint64_t positions(const std::string& id) const {
    const auto position = positions_.find(id);
    if (position == positions_.end()) return 0;
    const auto source = sources_.find(position->second);
    return source == sources_.end() ? 0 : source->second.accessor.value_or(0);
  }

  // How many values a skin may index in source `id`: its accessor's count
  // (assimp checks weights against their array itself); for joint names,
  // also no more than the names array holds. Unbounded when unknown.
  uint64_t values(const std::string& id, bool names) const {
    const auto source = sources_.find(id);
    if (source == sources_.end()) return UINT64_MAX;
    uint64_t size = source->second.accessor.value_or(UINT64_MAX);
    if (names) size = std::min(size, source->second.array.value_or(UINT64_MAX));
    return size;
  }

  std::map<std::string, Source, std::less<>> sources_;
  std::map<std::string, std::string, std::less<>> positions_;  // geometry id -> its position source id
  std::vector<Skin> skins_;
  struct Accessor {
    std::string array;
    uint64_t count, stride, offset;
    size_t at;
  };
  std::map<std::string, uint64_t, std::less<>> arrays_;  // array id -> its count
  std::vector<Accessor> accessors_;
  struct Polylist {
    uint64_t polygons, sizes;  // its count, and the numbers its <vcount> lists
    size_t at;
  };
  std::vector<Polylist> polylists_;
  struct Node {
    std::string id;
    bool transformed = false;  // has a <matrix>, <translate>... of its own
  };
  struct Channel {
    std::string target;
    size_t at;
  };
  struct OpenNode {
    size_t node;
    int depth;
  };
  // Node-channel pairs checked at most: a channel without '/' is rare, a node without a transform too.
  static constexpr uint64_t kMaxChannelChecks = uint64_t{1} << 24;
  std::vector<Node> nodes_;
  std::vector<OpenNode> node_stack_;
  std::vector<Channel> channels_;
  int depth_ = 0;
  std::string source_, geometry_, controller_;
  bool in_vertices_ = false, in_skin_ = false, in_weights_ = false, in_polylist_ = false;
};

}  // namespace

Status check_collada(std::string_view bytes, std::string& rewritten) {
  rewritten.clear();
  size_t copied = 0;  // bytes before this are in `rewritten` (or need no change while it is empty)
  ColladaCounts counts;
  int depth = 0;
  size_t nodes = 0;
  size_t i = 0;
  const auto skip_past = [&](std::string_view terminator) {
    const size_t found = bytes.find(terminator, i);
    i = found == std::string_view::npos ? bytes.size() : found + terminator.size();
  };
  while ((i = bytes.find('<', i)) != std::string_view::npos) {
    const std::string_view rest = bytes.substr(i);
    if (rest.starts_with("<!--")) {
      skip_past("-->");
    } else if (rest.starts_with("<![CDATA[")) {
      skip_past("]]>");
    } else if (rest.starts_with("<?") || rest.starts_with("<!")) {
      skip_past(">");
    } else if (rest.starts_with("</")) {
      --depth;
      const size_t name_end = std::min(rest.find_first_of(" \t\r\n>"), rest.size());
      counts.close(rest.substr(2, name_end - 2));
      skip_past(">");
    } else {
      const size_t tag_start = i;
      // The tag ends at the first '>' outside a quoted attribute value.
      char quote = 0;
      for (++i; i < bytes.size(); ++i) {
        const char c = bytes[i];
        if (quote) {
          if (c == quote) quote = 0;
        } else if (c == '"' || c == '\'') {
          quote = c;
        } else if (c == '>') {
          break;
        }
      }
      const std::string_view tag = bytes.substr(tag_start, i - tag_start);
      for (size_t at_count = tag.find("count="); at_count != std::string_view::npos;
           at_count = tag.find("count=", at_count + 6)) {
        uint64_t count;
        if (at_count + 7 < tag.size() && read_count(tag, at_count + 7, count) && count > bytes.size()) {
          return Error{"Collada element declares count " + std::to_string(count) +
                       ", more values than the file can hold" + at(tag_start)};
        }
      }
      const bool opens = i < bytes.size() && bytes[i - 1] != '/';
      if (opens && ++depth > kMaxNesting) return Error{"Collada XML elements are " + too_deep(tag_start)};
      ++i;
      // assimp 5.2 reads the index lists of primitives (<p>, <v>, <vcount>,
      // <h>) without checking that it advanced: a stray letter among the
      // numbers loops forever, pushing indices (found by fuzzing). Only
      // digits and spaces may stand there.
      const std::string_view name = tag.substr(1, tag.find_first_of(" \t\r\n/", 1) - 1);
      if (name == "node" && ++nodes > kMaxColladaNodes) {
        return Error{"the Collada file has more than " + std::to_string(kMaxColladaNodes) + " nodes" + at(tag_start)};
      }
      const size_t content_start = std::min(i, bytes.size());
      const std::string_view content =
          opens ? bytes.substr(content_start, std::min(bytes.find('<', content_start), bytes.size()) - content_start)
                : std::string_view{};
      // assimp 5.2 reads the first number of a <color>, <vcount>, <v> (and
      // others) without skipping the whitespace before it: it refuses the
      // colour, and reads the indices one number out of step (joint and
      // weight indices swapped: a write past the bones). XML lists allow the
      // whitespace, so a list of numbers that starts with it loses it.
      if (const size_t first = content.find_first_not_of(" \t\r\n");
          first != 0 && first != std::string_view::npos &&
          content.find_first_not_of(kNumberText) == std::string_view::npos) {
        if (copied == 0) rewritten.reserve(bytes.size());
        rewritten.append(bytes.substr(copied, content_start - copied));
        copied = content_start + first;
      }
      std::string_view text;
      if (name == "p" || name == "v" || name == "vcount" || name == "h") {
        text = content;
        const size_t bad = text.find_first_not_of("0123456789 \t\r\n");
        if (bad != std::string_view::npos) {
          return Error{"Collada <" + std::string(name) + "> index list holds something other than numbers" +
                       at(i + bad)};
        }
      }
      counts.open(name, tag, tag_start, text);
      if (!opens) counts.close(name);
    }
  }
  if (Status s = counts.check(); !s) return s;
  if (copied > 0) rewritten.append(bytes.substr(copied));
  return {};
}

}  // namespace ks::assimp
