#include "keystream/io/assimp_fbx_graph.h"

#include <algorithm>
#include <unordered_set>

#include "keystream/clip/excerpt.h"
#include "keystream/io/import.h"

namespace ks::assimp {

namespace {

// "Bone\0\1Model" (binary) or "Model::Bone" (ASCII) as "Bone".
std::string_view bare_name(std::string_view name) {
  if (const size_t separator = name.find(std::string_view{"\0\1", 2}); separator != std::string_view::npos) {
    return name.substr(0, separator);
  }
  if (const size_t colons = name.find("::"); colons != std::string_view::npos) return name.substr(colons + 2);
  return name;
}

std::string count(uint64_t n) { return std::to_string(n); }

}  // namespace

void FbxGraph::add_model(uint64_t id, std::string_view name) { m_models.try_emplace(id, bare_name(name)); }

void FbxGraph::add_curve(uint64_t id, size_t record) { m_curves.push_back({id, record, 0}); }

void FbxGraph::set_last_curve_keys(uint64_t keys) {
  if (!m_curves.empty()) m_curves.back().keys = keys;
}

void FbxGraph::add_stack(std::string_view name) { m_stacks.emplace_back(bare_name(name)); }

void FbxGraph::add_link(uint64_t child, uint64_t parent, std::string_view property) {
  std::vector<Target>& targets = m_targets[child];
  if (targets.size() < 8) targets.push_back(Target{parent, std::string(property.substr(0, 64))});
  m_links.emplace_back(child, parent);
}

Status FbxGraph::check(uint64_t max_bone_frames) const {
  if (m_models.size() > kMaxFbxModels) {
    return Error{"the FBX file has " + count(m_models.size()) + " models (nodes); at most " + count(kMaxFbxModels) +
                 " are read"};
  }
  // Links may come before the objects they join: models' parents are found now.
  std::unordered_map<uint64_t, uint64_t> model_parent;
  for (const auto& [child, parent] : m_links) {
    if (m_models.contains(child) && m_models.contains(parent)) model_parent.try_emplace(child, parent);
  }
  // Depth of every model, each chain walked once: a model's depth is its
  // parent's plus one, memoised; 0 marks "on the chain being walked".
  std::unordered_map<uint64_t, size_t> depth;
  depth.reserve(m_models.size());
  std::vector<uint64_t> chain;
  for (const auto& [id, name] : m_models) {
    uint64_t at = id;
    chain.clear();
    size_t base = 0;
    while (true) {
      if (const auto known = depth.find(at); known != depth.end()) {
        if (known->second == 0) {
          return Error{"the FBX file's models are linked in a loop (through '" + excerpt(m_models.at(at)) + "')"};
        }
        base = known->second;
        break;
      }
      depth.emplace(at, 0);
      chain.push_back(at);
      const auto parent = model_parent.find(at);
      if (parent == model_parent.end()) break;
      at = parent->second;
    }
    for (size_t i = chain.size(); i-- > 0;) {
      depth[chain[i]] = ++base;
      if (base > kMaxFbxDepth) {
        return Error{"the FBX file's models are nested more than " + count(kMaxFbxDepth) + " deep ('" +
                     excerpt(m_models.at(chain[i])) + "' is " + count(base) + " levels down)"};
      }
    }
  }
  // Curves reach a model through their curve node.
  std::unordered_set<uint64_t> animated;
  uint64_t most_keys = 0;
  for (const Curve& curve : m_curves) {
    most_keys = std::max(most_keys, curve.keys);
    if (const Target* model = animated_by(curve.id)) animated.insert(model->parent);
  }
  // Each key time is a frame or a key pose of every animated bone at least.
  ImportSettings limit;
  limit.max_bone_frames = max_bone_frames;
  if (Status s = check_clip_size(std::max<uint64_t>(animated.size(), 1), most_keys, limit); !s) {
    return Error{"an FBX animation curve has " + count(most_keys) + " keys: " + s.error()};
  }
  return {};
}

std::vector<size_t> FbxGraph::empty_curve_records() const {
  std::vector<size_t> records;
  for (const Curve& curve : m_curves) {
    if (curve.keys == 0) records.push_back(curve.record);
  }
  return records;
}

size_t FbxGraph::empty_curve_count() const {
  return static_cast<size_t>(std::count_if(m_curves.begin(), m_curves.end(), [](const Curve& c) { return c.keys == 0; }));
}

std::vector<std::string> FbxGraph::empty_curve_targets(size_t limit) const {
  std::vector<std::string> targets;
  for (const Curve& curve : m_curves) {
    if (curve.keys != 0 || targets.size() >= limit) continue;
    const Target* model = animated_by(curve.id);
    std::string target =
        model == nullptr ? "an unlinked curve" : excerpt(m_models.at(model->parent)) + " " + excerpt(model->property);
    // A property's three curves (X, Y, Z) are named once.
    if (std::find(targets.begin(), targets.end(), target) == targets.end()) targets.push_back(std::move(target));
  }
  return targets;
}

const FbxGraph::Target* FbxGraph::animated_by(uint64_t curve) const {
  const auto nodes = m_targets.find(curve);
  if (nodes == m_targets.end()) return nullptr;
  for (const Target& node : nodes->second) {
    const auto links = m_targets.find(node.parent);
    if (links == m_targets.end()) continue;
    for (const Target& link : links->second) {
      if (m_models.contains(link.parent)) return &link;
    }
  }
  return nullptr;
}

std::vector<std::string> FbxGraph::still_takes() const {
  if (m_curves.empty() || empty_curve_count() != m_curves.size()) return {};
  return m_stacks;
}

}  // namespace ks::assimp
