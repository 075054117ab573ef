#pragma once
// The committed demo clip, imported once per test executable and shared, for
// the studio's model tests.

#include <gtest/gtest.h>

#include <memory>

#include "keystream/io/import.h"

namespace ks::studio {

inline std::shared_ptr<const ImportedClip> demo_clip() {
  static const std::shared_ptr<const ImportedClip> clip = [] {
    Result<ImportedClip> imported = import_clip(KS_ASSETS_DIR "/demo_walk.glb");
    EXPECT_TRUE(imported.ok()) << imported.error();
    return std::make_shared<const ImportedClip>(std::move(imported.value()));
  }();
  return clip;
}

}  // namespace ks::studio
