# `cmake --install`: the engine package. ks_runtime as keystream::runtime and
# ks_offline as keystream::offline, their headers as include/keystream/<part>/
# (the prefix's include/ is the include directory, as for <acl/...> and
# <ozz/...>), the keystream tool as keystream::keystream with
# keystream_add_clips to cook clips in a game's build (docs/cook.md), a
# package config for find_package(keystream) and keystream-runtime.pc for
# pkg-config.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(KS_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/keystream" CACHE STRING
    "Where the package config goes, relative to the prefix")

# The file sets' base is the include root (core/CMakeLists.txt), so their
# keystream/... paths are kept under include/.
# Two export sets, so an engine that links only the runtime needs only
# libzstd, not the offline library's tinygltf, glm and nlohmann_json.
install(TARGETS ks_runtime EXPORT keystream-runtime-targets
        ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}"
        FILE_SET HEADERS DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")
install(TARGETS ks_offline EXPORT keystream-offline-targets
        ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}"
        FILE_SET HEADERS DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")
install(EXPORT keystream-runtime-targets NAMESPACE keystream:: DESTINATION "${KS_INSTALL_CMAKEDIR}")
install(EXPORT keystream-offline-targets NAMESPACE keystream:: DESTINATION "${KS_INSTALL_CMAKEDIR}")
# The tools (their install(TARGETS) is in app/, where they are defined) as
# imported executables: a third set, which needs no package at all.
install(EXPORT keystream-tools-targets NAMESPACE keystream:: DESTINATION "${KS_INSTALL_CMAKEDIR}")

configure_package_config_file(cmake/keystreamConfig.cmake.in "${PROJECT_BINARY_DIR}/keystreamConfig.cmake"
                              INSTALL_DESTINATION "${KS_INSTALL_CMAKEDIR}")
# Before 1.0 a minor version may change the API: SameMinorVersion.
write_basic_package_version_file("${PROJECT_BINARY_DIR}/keystreamConfigVersion.cmake"
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES "${PROJECT_BINARY_DIR}/keystreamConfig.cmake" "${PROJECT_BINARY_DIR}/keystreamConfigVersion.cmake"
              cmake/keystreamCook.cmake DESTINATION "${KS_INSTALL_CMAKEDIR}")

# The .pc file finds the prefix from its own folder, so `cmake --install
# --prefix P` works whatever CMAKE_INSTALL_PREFIX was at configure time.
set(_ks_pkgconfigdir "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
if(IS_ABSOLUTE "${_ks_pkgconfigdir}")
  set(KS_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
else()
  file(RELATIVE_PATH _ks_pc_to_prefix "/prefix/${_ks_pkgconfigdir}" "/prefix")
  string(REGEX REPLACE "/$" "" _ks_pc_to_prefix "${_ks_pc_to_prefix}")
  set(KS_PC_PREFIX "\${pcfiledir}/${_ks_pc_to_prefix}")
endif()
configure_file(cmake/keystream-runtime.pc.in "${PROJECT_BINARY_DIR}/keystream-runtime.pc" @ONLY)
install(FILES "${PROJECT_BINARY_DIR}/keystream-runtime.pc" DESTINATION "${_ks_pkgconfigdir}")
