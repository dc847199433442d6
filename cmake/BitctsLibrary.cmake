# SPDX-License-Identifier: MIT
# bitcts_add_library: a folder's (or a harness room's) one library, declared the same way for
# each (docs/layout.md: one folder, one target, whose link list is exactly the folder's rule).

# bitcts_add_library(bitcts_<name> SOURCES <file>... [PUBLIC <target>...] [PRIVATE <target>...])
# adds the STATIC library bitcts_<name> from <file>..., its alias bitcts::<name>, the calling
# folder as its public include directory, and its rule as its link list: PUBLIC what its headers
# and users may use too, PRIVATE what only its sources use; both get the project's warnings.
function(bitcts_add_library target)
  cmake_parse_arguments(PARSE_ARGV 1 _arg "" "" "SOURCES;PUBLIC;PRIVATE")
  string(REGEX REPLACE "^bitcts_" "" _name ${target})
  add_library(${target} STATIC ${_arg_SOURCES})
  add_library(bitcts::${_name} ALIAS ${target})
  target_include_directories(${target} PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
  target_link_libraries(${target} PUBLIC ${_arg_PUBLIC} PRIVATE ${_arg_PRIVATE} bitcts_warnings)
endfunction()
