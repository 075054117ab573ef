# keystream_add_clips: cooks source clips into stream files (.ks) in a game's
# build, one build step per clip, with the installed keystream tool.
# Included by keystreamConfig.cmake; docs/cook.md describes it.
#
#   keystream_add_clips(TARGET <name> CLIPS <file>... OUTPUT_DIR <dir>
#                       [TOLERANCE <mm>] [SHELL_DISTANCE <cm>]
#                       [BONE_TOLERANCES <file>] [ALL_ANIMATIONS])
#
# CLIPS and BONE_TOLERANCES are relative to CMAKE_CURRENT_SOURCE_DIR,
# OUTPUT_DIR to CMAKE_CURRENT_BINARY_DIR. Each clip becomes OUTPUT_DIR/STEM.ks,
# or with ALL_ANIMATIONS OUTPUT_DIR/STEM.ANIMATION.ks for each animation
# (listed at configure time). TARGET, built by ALL, depends on every output.
include_guard(GLOBAL)

function(keystream_add_clips)
  cmake_parse_arguments(PARSE_ARGV 0 arg "ALL_ANIMATIONS"
                        "TARGET;TOLERANCE;SHELL_DISTANCE;BONE_TOLERANCES;OUTPUT_DIR" "CLIPS")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "keystream_add_clips: unknown argument(s) ${arg_UNPARSED_ARGUMENTS}; it takes TARGET, "
                        "CLIPS, OUTPUT_DIR, TOLERANCE, SHELL_DISTANCE, BONE_TOLERANCES and ALL_ANIMATIONS")
  endif()
  foreach(keyword IN LISTS arg_KEYWORDS_MISSING_VALUES)
    message(FATAL_ERROR "keystream_add_clips: ${keyword} is given without a value")
  endforeach()
  foreach(keyword IN ITEMS TARGET CLIPS OUTPUT_DIR)
    if(NOT arg_${keyword})
      message(FATAL_ERROR "keystream_add_clips: ${keyword} is missing")
    endif()
  endforeach()
  if(NOT TARGET keystream::keystream)
    message(FATAL_ERROR "keystream_add_clips: the keystream::keystream tool is not defined; find_package(keystream)")
  endif()

  cmake_path(ABSOLUTE_PATH arg_OUTPUT_DIR BASE_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}" NORMALIZE
             OUTPUT_VARIABLE output_dir)
  set(options "")
  if(DEFINED arg_TOLERANCE)
    list(APPEND options --tolerance "${arg_TOLERANCE}")
  endif()
  if(DEFINED arg_SHELL_DISTANCE)
    list(APPEND options --shell-distance "${arg_SHELL_DISTANCE}")
  endif()
  set(tolerance_file "")
  if(DEFINED arg_BONE_TOLERANCES)
    cmake_path(ABSOLUTE_PATH arg_BONE_TOLERANCES BASE_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}" NORMALIZE
               OUTPUT_VARIABLE tolerance_file)
    if(NOT EXISTS "${tolerance_file}")
      message(FATAL_ERROR "keystream_add_clips: BONE_TOLERANCES ${tolerance_file} does not exist")
    endif()
    list(APPEND options --bone-tolerances "${tolerance_file}")
  endif()
  # The settings as a file that changes only when they do: a dependency of
  # every step, so that Make re-cooks as Ninja does when a value changes.
  set(settings_file "${CMAKE_CURRENT_BINARY_DIR}/keystream_add_clips/${arg_TARGET}.settings")
  set(old_settings "none")
  if(EXISTS "${settings_file}")
    file(READ "${settings_file}" old_settings)
  endif()
  if(NOT old_settings STREQUAL "options: ${options}")
    file(WRITE "${settings_file}" "options: ${options}")
  endif()
  if(arg_ALL_ANIMATIONS)
    # At configure time the build needs every output's name: the tool lists them.
    get_target_property(tool keystream::keystream LOCATION)
  endif()

  set(all_outputs "")
  set(stems "")
  foreach(clip IN LISTS arg_CLIPS)
    cmake_path(ABSOLUTE_PATH clip BASE_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}" NORMALIZE OUTPUT_VARIABLE source)
    if(NOT EXISTS "${source}" OR IS_DIRECTORY "${source}")
      message(FATAL_ERROR "keystream_add_clips: CLIPS names ${source}, which is not a file")
    endif()
    cmake_path(GET source STEM LAST_ONLY stem)
    cmake_path(GET source FILENAME name)
    # Output names differing only in case are one file on some file systems.
    string(TOLOWER "${stem}" stem_key)
    if(stem_key IN_LIST stems)
      message(FATAL_ERROR "keystream_add_clips: CLIPS has two clips named ${stem} (${source} is the second): "
                          "both would cook to ${output_dir}/${stem}.ks; cook them in two calls with two OUTPUT_DIRs")
    endif()
    list(APPEND stems "${stem_key}")

    # The tool's import helper reads FBX and Collada: a new one may import them differently.
    set(helper "")
    if(name MATCHES "\\.([Ff][Bb][Xx]|[Dd][Aa][Ee]|[Zz][Aa][Ee])$")
      set(helper keystream::import)
    endif()
    if(arg_ALL_ANIMATIONS)
      execute_process(COMMAND "${tool}" inspect "${source}" --animation-files
                      RESULT_VARIABLE status OUTPUT_VARIABLE parts ERROR_VARIABLE error)
      if(NOT status EQUAL 0)
        message(FATAL_ERROR "keystream_add_clips: listing the animations of ${source} failed: ${error}")
      endif()
      # A changed clip may have other animations: configure again.
      set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${source}" "${tool}")
      string(REGEX REPLACE "\n$" "" parts "${parts}")
      string(REPLACE "\n" ";" parts "${parts}")
      set(outputs "")
      foreach(part IN LISTS parts)
        list(APPEND outputs "${output_dir}/${stem}.${part}.ks")
      endforeach()
      # One step per clip: the tool imports the file once for all its animations.
      add_custom_command(OUTPUT ${outputs}
                         COMMAND "${CMAKE_COMMAND}" -E make_directory "${output_dir}"
                         COMMAND keystream::keystream compress "${source}" --all-animations -o "${output_dir}" ${options}
                         DEPENDS "${source}" ${tolerance_file} "${settings_file}" keystream::keystream ${helper}
                         COMMENT "Cooking clip ${name} (all animations)"
                         VERBATIM)
    else()
      set(outputs "${output_dir}/${stem}.ks")
      add_custom_command(OUTPUT ${outputs}
                         COMMAND "${CMAKE_COMMAND}" -E make_directory "${output_dir}"
                         COMMAND keystream::keystream compress "${source}" -o ${outputs} ${options}
                         DEPENDS "${source}" ${tolerance_file} "${settings_file}" keystream::keystream ${helper}
                         COMMENT "Cooking clip ${name}"
                         VERBATIM)
    endif()
    list(APPEND all_outputs ${outputs})
  endforeach()
  add_custom_target(${arg_TARGET} ALL DEPENDS ${all_outputs})
endfunction()
