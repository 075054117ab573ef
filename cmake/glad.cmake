# Generates the OpenGL 3.3 core loader with Debian's python3-glad at build
# time. --reproducible makes glad use its bundled Khronos XML instead of
# fetching it, so the build needs no network.
find_program(KS_GLAD_EXECUTABLE glad REQUIRED)
set(_glad_dir "${CMAKE_BINARY_DIR}/glad")
add_custom_command(
  OUTPUT "${_glad_dir}/src/gl.c" "${_glad_dir}/include/glad/gl.h" "${_glad_dir}/include/KHR/khrplatform.h"
  COMMAND "${KS_GLAD_EXECUTABLE}" --reproducible --quiet --api gl:core=3.3 --out-path "${_glad_dir}" c
  COMMENT "Generating the OpenGL 3.3 core loader with glad"
  VERBATIM)
add_library(ks_glad STATIC "${_glad_dir}/src/gl.c")
target_include_directories(ks_glad SYSTEM PUBLIC "${_glad_dir}/include")
target_link_libraries(ks_glad PUBLIC ${CMAKE_DL_LIBS})
