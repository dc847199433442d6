# SPDX-License-Identifier: MIT
# bitcts_add_backend: the two targets every backend builds from one list of sources, a static
# library linked into the bitcts executable and a plugin module for `--backend ./lib....so`.

# bitcts_add_backend(<name> SOURCES <file>... ENTRY <file> PLUGIN_DEFINITION <macro>
#                    SETUP <function>) adds bitcts_backend_<name> (STATIC, alias
# bitcts::backend_<name>) and bitcts_<name>_plugin (MODULE, file libbitcts_<name>.so, installed in
# <libdir>/bitcts). ENTRY, the one source that reads <macro>, is compiled for each, the plugin's
# with <macro> defined; the other sources once, into bitcts_backend_<name>_objects (an OBJECT
# library both link). <function>(<target>) adds the backend's own include directories and
# libraries to each of the three; all get the project's warnings, C11 without extensions, hidden
# visibility and PIC.
function(bitcts_add_backend name)
  cmake_parse_arguments(PARSE_ARGV 1 _arg "" "PLUGIN_DEFINITION;SETUP;ENTRY" "SOURCES")
  set(_shared ${_arg_SOURCES})
  list(REMOVE_ITEM _shared ${_arg_ENTRY})
  add_library(bitcts_backend_${name}_objects OBJECT ${_shared})
  add_library(bitcts_backend_${name} STATIC ${_arg_ENTRY})
  add_library(bitcts::backend_${name} ALIAS bitcts_backend_${name})
  add_library(bitcts_${name}_plugin MODULE ${_arg_ENTRY})
  foreach(_target IN ITEMS bitcts_backend_${name}_objects bitcts_backend_${name}
                           bitcts_${name}_plugin)
    cmake_language(CALL ${_arg_SETUP} ${_target})
    if(TARGET bitcts_warnings)
      target_link_libraries(${_target} PRIVATE bitcts_warnings)
    endif()
    set_target_properties(${_target} PROPERTIES C_STANDARD 11 C_STANDARD_REQUIRED ON
                          C_EXTENSIONS OFF C_VISIBILITY_PRESET hidden POSITION_INDEPENDENT_CODE ON)
  endforeach()
  # A directly linked OBJECT library: its objects go into each of the two.
  target_link_libraries(bitcts_backend_${name} PRIVATE bitcts_backend_${name}_objects)
  target_link_libraries(bitcts_${name}_plugin PRIVATE bitcts_backend_${name}_objects)
  target_compile_definitions(bitcts_${name}_plugin PRIVATE ${_arg_PLUGIN_DEFINITION})
  set_target_properties(bitcts_${name}_plugin PROPERTIES OUTPUT_NAME bitcts_${name})
  if(BITCTS_INSTALL)
    install(TARGETS bitcts_${name}_plugin LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/bitcts)
  endif()
endfunction()
