# SPDX-License-Identifier: MIT
# bitcts_add_conformance_tests(): a backend's conformance groups as CTest tests, one per
# operator, each a `bitcts run --filter '<op>.*'` whose reports CDash receives as attachments.
# One file serves both sides: the installed package includes it from bitcts-config.cmake (a
# vendor's project, bitcts::bitcts imported from the prefix), and bitcts's own tests include it
# from the source tree for the built-in CPU groups (bitcts::bitcts an alias of the build's
# executable). docs/ci/cdash.md is the user's guide.

# The operator groups, in the order of the case plan (docs/case-plan.md).
set(BITCTS_CONFORMANCE_OPERATORS bit_and bit_or bit_xor bit_not bit_count bit_shift_left
    bit_shift_right)

# bitcts_add_conformance_tests(TARGET <plugin target> | BACKEND <name or path>
#     [BACKEND_OPTIONS KEY=VALUE...] [TIER <tier>] [OPERATORS <op>...] [FILTER <glob>...]
#     [EXCLUDE <glob>...] [BASELINE <file>] [PREFIX <name>] [LABELS <label>...]
#     [REPORT_DIR <dir>] [JOBS <n>] [TIMEOUT <s>] [ATTACH ALWAYS|ON_FAIL|NONE]
#     [SKIP_ON_ENVIRONMENT_FAILURE] [RUN_ARGS <arg>...])
#
# Adds the test <PREFIX>.<op> for each operator of OPERATORS (default: all seven), running
#   bitcts run --backend B --tier T --quiet --force --jobs N --filter '<op>.<FILTER>'...
#               --report <REPORT_DIR>/<op>
# with the labels `conformance` and LABELS, so `ctest -L conformance` runs them.
#   TARGET     a MODULE library of this project: the plugin, run as $<TARGET_FILE:TARGET>.
#   BACKEND    instead of TARGET: a built-in backend (cpu, cpu:scalar) or a plugin's path.
#   FILTER     globs over the rest of the case id after `<op>.` (default `*`); several are
#              joined as run joins several --filter: a case matching any of them.
#              A group that selects no case fails (bitcts refuses an empty selection, exit 2).
#   EXCLUDE    globs over whole case ids, passed as --exclude.
#   BASELINE   an expected-failures file (run --baseline; relative to the current source dir).
#   PREFIX     the test names' prefix (default conformance.<target or backend>).
#   REPORT_DIR the parent of the groups' report folders (default: the current binary dir
#              and PREFIX with its dots as slashes, e.g. conformance/myplugin).
#   JOBS       worker processes per group (default 1: `ctest -j` runs groups side by side).
#   TIMEOUT    seconds per group (default 300).
#   ATTACH     which runs attach summary.md, junit.xml and report.json of their group to the
#              CDash submission: ALWAYS (default; ATTACHED_FILES), ON_FAIL
#              (ATTACHED_FILES_ON_FAIL) or NONE.
#   RUN_ARGS   further arguments of bitcts run (e.g. --seed S, --timeout S, --isolate case).
# Exit codes of bitcts run (docs/harness.md) in CTest: 0 passes; 1 (a conformance failure),
# 2 (bad input) and 130 (interrupted) fail. 3 (the environment failed: no device, no driver, a
# full disk) fails too, so a machine that tested nothing is never green; with
# SKIP_ON_ENVIRONMENT_FAILURE it is CTest's "Not Run" (SKIP_RETURN_CODE 3) instead: not a pass,
# but not a failure of ctest's exit code either, for runners that may lack the device.
function(bitcts_add_conformance_tests)
  cmake_parse_arguments(PARSE_ARGV 0 _c "SKIP_ON_ENVIRONMENT_FAILURE"
    "TARGET;BACKEND;TIER;BASELINE;PREFIX;REPORT_DIR;JOBS;TIMEOUT;ATTACH"
    "BACKEND_OPTIONS;OPERATORS;FILTER;EXCLUDE;LABELS;RUN_ARGS")
  _bitcts_conformance_defaults()
  set(_args run --backend ${_backend} --tier ${_c_TIER} --quiet --force --jobs ${_c_JOBS})
  foreach(_option IN LISTS _c_BACKEND_OPTIONS)
    list(APPEND _args --backend-option ${_option})
  endforeach()
  foreach(_glob IN LISTS _c_EXCLUDE)
    list(APPEND _args --exclude ${_glob})
  endforeach()
  if(DEFINED _c_BASELINE)
    get_filename_component(_baseline "${_c_BASELINE}" ABSOLUTE BASE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
    list(APPEND _args --baseline ${_baseline})
  endif()
  list(APPEND _args ${_c_RUN_ARGS})
  set(_labels conformance ${_c_LABELS})
  foreach(_op IN LISTS _c_OPERATORS)
    set(_filters)
    foreach(_glob IN LISTS _c_FILTER)
      list(APPEND _filters --filter "${_op}.${_glob}")
    endforeach()
    set(_dir ${_c_REPORT_DIR}/${_op})
    add_test(NAME ${_c_PREFIX}.${_op}
             COMMAND $<TARGET_FILE:bitcts::bitcts> ${_args} ${_filters} --report ${_dir})
    set_tests_properties(${_c_PREFIX}.${_op} PROPERTIES LABELS "${_labels}" TIMEOUT ${_c_TIMEOUT})
    if(NOT _c_ATTACH STREQUAL "NONE")
      set(_property ATTACHED_FILES)
      if(_c_ATTACH STREQUAL "ON_FAIL")
        set(_property ATTACHED_FILES_ON_FAIL)
      endif()
      set_tests_properties(${_c_PREFIX}.${_op} PROPERTIES
                           ${_property} "${_dir}/summary.md;${_dir}/junit.xml;${_dir}/report.json")
    endif()
    if(_c_SKIP_ON_ENVIRONMENT_FAILURE)
      set_tests_properties(${_c_PREFIX}.${_op} PROPERTIES SKIP_RETURN_CODE 3)
    endif()
  endforeach()
endfunction()

# The arguments' checks and defaults, in the caller's variables (_c_*, _backend): a mistake in
# the call stops the configuration with one message naming it.
macro(_bitcts_conformance_defaults)
  set(_where "bitcts_add_conformance_tests")
  if(_c_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "${_where}: unknown arguments: ${_c_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT TARGET bitcts::bitcts)
    message(FATAL_ERROR "${_where}: no bitcts::bitcts target (find_package(bitcts) first)")
  endif()
  if(DEFINED _c_TARGET AND DEFINED _c_BACKEND OR NOT DEFINED _c_TARGET AND NOT DEFINED _c_BACKEND)
    message(FATAL_ERROR "${_where}: give either TARGET (a plugin target) or BACKEND")
  endif()
  if(DEFINED _c_TARGET)
    if(NOT TARGET ${_c_TARGET})
      message(FATAL_ERROR "${_where}: TARGET ${_c_TARGET} is not a target")
    endif()
    set(_backend $<TARGET_FILE:${_c_TARGET}>)
    string(MAKE_C_IDENTIFIER "${_c_TARGET}" _slug)
  else()
    set(_backend ${_c_BACKEND})
    get_filename_component(_slug "${_c_BACKEND}" NAME_WE)
    string(MAKE_C_IDENTIFIER "${_slug}" _slug)
  endif()
  if(NOT DEFINED _c_PREFIX)
    set(_c_PREFIX conformance.${_slug})
  endif()
  if(NOT DEFINED _c_REPORT_DIR)
    string(REPLACE "." "/" _c_REPORT_DIR "${_c_PREFIX}")
    set(_c_REPORT_DIR ${CMAKE_CURRENT_BINARY_DIR}/${_c_REPORT_DIR})
  endif()
  foreach(_default IN ITEMS TIER=default JOBS=1 TIMEOUT=300 ATTACH=ALWAYS FILTER=*)
    string(REGEX REPLACE "=.*" "" _key "${_default}")
    string(REGEX REPLACE "^[A-Z]+=" "" _value "${_default}")
    if(NOT DEFINED _c_${_key})
      set(_c_${_key} "${_value}")
    endif()
  endforeach()
  if(NOT _c_ATTACH MATCHES "^(ALWAYS|ON_FAIL|NONE)$")
    message(FATAL_ERROR "${_where}: ATTACH ${_c_ATTACH} is not ALWAYS, ON_FAIL or NONE")
  endif()
  if(NOT DEFINED _c_OPERATORS)
    set(_c_OPERATORS ${BITCTS_CONFORMANCE_OPERATORS})
  endif()
  foreach(_op IN LISTS _c_OPERATORS)
    if(NOT _op IN_LIST BITCTS_CONFORMANCE_OPERATORS)
      message(FATAL_ERROR "${_where}: unknown operator ${_op} (${BITCTS_CONFORMANCE_OPERATORS})")
    endif()
  endforeach()
endmacro()
