# SPDX-License-Identifier: MIT
# Build step and lint: the shaders take their specialization ids, operator codes, flag bits and
# tile sides from vk_abi.h, the header the host code includes, and write none of them again.
# A shader fails the check where it
#   - declares a specialization constant or a workgroup size id by a literal number
#     (constant_id = 3, local_size_x_id = 7) instead of a BITCTS_VK_SPEC_* name;
#   - defines a name of vk_abi.h again (#define BITCTS_VK_...);
#   - defines an operator code or a flag bit of its own (#define VK_OP_AND ..., #define
#     VK_FLAG_...);
#   - (a .comp file) includes neither vk_common.glsl nor vk_abi.h.
# Usage:
#   cmake -DSHADERS="a.comp;b.glsl" [-DSTAMP=file] -P vk_abi_check.cmake
#       fails (FATAL_ERROR, a line a problem) on any of the above; writes STAMP when clean.
#   cmake -DSHADERS=... -DMODE=selftest -P vk_abi_check.cmake
#       the lint's own test: the shaders pass, and each planted drift (a literal id, a local
#       operator code, a shared name defined again) is caught.

# Problems of one shader's text, appended to the list named by out_var.
function(vk_abi_problems text name out_var)
  set(problems ${${out_var}})
  # One list element a line: the list's own separator and brackets (which would hold a
  # separator back) are replaced first.
  string(REPLACE ";" "," text "${text}")
  string(REPLACE "[" "(" text "${text}")
  string(REPLACE "]" ")" text "${text}")
  string(REPLACE "\\" "/" text "${text}")
  string(REPLACE "\n" ";" lines "${text}")
  set(n 0)
  foreach(line IN LISTS lines)
    math(EXPR n "${n} + 1")
    if(line MATCHES "(constant_id|local_size_[xyz]_id)[ \t]*=[ \t]*[0-9]")
      list(APPEND problems "${name}:${n}: a literal specialization id (use BITCTS_VK_SPEC_*)")
    endif()
    if(line MATCHES "^[ \t]*#[ \t]*define[ \t]+BITCTS_VK_")
      list(APPEND problems "${name}:${n}: defines a name of vk_abi.h again")
    endif()
    if(line MATCHES "^[ \t]*#[ \t]*define[ \t]+([A-Za-z0-9]+_)*(OP|FLAG)_[A-Z]")
      list(APPEND problems "${name}:${n}: an operator code or flag bit of its own (vk_abi.h has them)")
    endif()
  endforeach()
  if(name MATCHES "\\.comp$" AND NOT text MATCHES "#include \"(vk_common\\.glsl|vk_abi\\.h)\"")
    list(APPEND problems "${name}: includes neither vk_common.glsl nor vk_abi.h")
  endif()
  set(${out_var} ${problems} PARENT_SCOPE)
endfunction()

# Problems of every shader, with `plant` (old;new) replaced once in the file named `where`.
function(vk_abi_check_all where old new out_var)
  set(problems "")
  foreach(path IN LISTS SHADERS)
    get_filename_component(name "${path}" NAME)
    file(READ "${path}" text)
    if(name STREQUAL where)
      string(FIND "${text}" "${old}" at)
      if(at LESS 0)
        message(FATAL_ERROR "vk_abi_check: the self-test's text \"${old}\" is not in ${name}")
      endif()
      string(REPLACE "${old}" "${new}" text "${text}")
    endif()
    vk_abi_problems("${text}" "${name}" problems)
  endforeach()
  set(${out_var} ${problems} PARENT_SCOPE)
endfunction()

if(NOT SHADERS)
  message(FATAL_ERROR "vk_abi_check: no SHADERS given")
endif()

if(MODE STREQUAL "selftest")
  vk_abi_check_all("" "" "" clean)
  if(clean)
    string(REPLACE ";" "\n  " clean "${clean}")
    message(FATAL_ERROR "vk_abi_check: the shaders drift from vk_abi.h:\n  ${clean}")
  endif()
  # Each planted drift: file, text, replacement.
  set(plants
      "vk_packed.comp|constant_id = BITCTS_VK_SPEC_ROWS|constant_id = 3"
      "vk_tile.comp|local_size_x_id = BITCTS_VK_SPEC_TILE_THREADS|local_size_x_id = 6"
      "vk_common.glsl|#include \"vk_abi.h\"|#include \"vk_abi.h\"\n#define VK_OP_AND 1u"
      "vk_tilew.comp|#define V |#define BITCTS_VK_TILE 16u\n#define V "
      "vk_strided.comp|#include \"vk_common.glsl\"|#include \"vk_access.glsl\"")
  foreach(plant IN LISTS plants)
    string(REPLACE "|" ";" parts "${plant}")
    list(GET parts 0 where)
    list(GET parts 1 old)
    list(GET parts 2 new)
    vk_abi_check_all("${where}" "${old}" "${new}" found)
    if(NOT found)
      message(FATAL_ERROR "vk_abi_check: a planted drift went unnoticed: ${where}: ${new}")
    endif()
    list(GET found 0 first)
    message(STATUS "caught: ${first}")
  endforeach()
  message(STATUS "vk_abi_check: the shaders use vk_abi.h, and every planted drift is caught")
  return()
endif()

vk_abi_check_all("" "" "" problems)
if(problems)
  string(REPLACE ";" "\n  " problems "${problems}")
  message(FATAL_ERROR "vk_abi_check: the shaders drift from vk_abi.h:\n  ${problems}")
endif()
if(STAMP)
  file(WRITE "${STAMP}" "shaders agree with vk_abi.h\n")
endif()
