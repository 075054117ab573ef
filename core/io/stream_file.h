#pragma once
// Stream files (.ks): a packed stream (core/runtime/stream_format.h) stored
// as it is, so an engine can load the file's bytes and open them directly.
// Loading checks every byte (StreamView::open); writing is atomic. Decoding
// turns a stream back into a Skeleton and a RawClip for the tools that
// compare it, export it or show it.

#include <filesystem>
#include <memory>
#include <span>
#include <vector>

#include "keystream/clip/raw_clip.h"
#include "keystream/clip/skeleton.h"
#include "keystream/runtime/result.h"
#include "keystream/runtime/stream_view.h"

namespace ks {

/// The bytes of a stream file and the view that checked them. Not movable
/// (the view borrows the bytes): held through a unique_ptr.
struct StreamFile {
  std::filesystem::path path;
  std::vector<uint8_t> bytes;
  StreamView view;
};

/// Reads and checks `path`; the error names the file and the first problem.
Result<std::unique_ptr<StreamFile>> load_stream_file(const std::filesystem::path& path);

/// Writes `stream` to `path` atomically (a temporary file, then a rename).
Status write_stream_file(const std::filesystem::path& path, std::span<const uint8_t> stream);

/// A stream decoded through the Player at every frame: the bones (named from
/// the metadata, or "bone_<i>" when the stream stores no usable names; rest
/// pose = the decoded frame 0) and the clip (rotations made continuous; the
/// scalar tracks named and targeted from the metadata, or "scalar_<i>" curves).
struct DecodedStream {
  Skeleton skeleton;
  RawClip clip;
};
DecodedStream decode_stream(const StreamView& stream);

}  // namespace ks
