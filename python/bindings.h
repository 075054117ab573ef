#pragma once
// The keystream Python module's shared types: the Clip and Stream objects
// and the functions that register each concept's bindings (docs/python.md).

#include <pybind11/pybind11.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "keystream/io/import.h"
#include "keystream/runtime/player.h"
#include "keystream/runtime/stream_view.h"

namespace ks::python {

namespace py = pybind11;

/// An imported clip and the settings it was imported with (an additive
/// base file is imported with them too, as the CLI does).
struct Clip {
  ImportedClip imported;
  ImportSettings settings;
};

/// A stream's bytes and the view that checked them. The view borrows the
/// bytes, so both live here, behind a unique_ptr that never moves them.
struct Stream {
  std::string source;  // where it came from: a file, or "compressed CLIP"
  std::vector<uint8_t> bytes;
  std::optional<StreamView> view;
  std::unique_ptr<Player> player;  // made on the first sample; guarded by player_mutex
  std::mutex player_mutex;
};

/// Raises keystream.Error naming what failed; `message` names the file.
[[noreturn]] void raise_error(const std::string& message);
/// Raises ValueError (a bad setting) with `message`.
[[noreturn]] void raise_value_error(const std::string& message);

/// Checks `bytes` fully and wraps them; `name` prefixes any error.
std::shared_ptr<Stream> open_stream(std::vector<uint8_t> bytes, const std::string& name);

void bind_clip(py::module_& m);
void bind_stream(py::module_& m);
void bind_compress(py::module_& m);

}  // namespace ks::python
