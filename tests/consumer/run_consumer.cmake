# SPDX-License-Identifier: MIT
# Installs the build into a staging prefix, then configures and builds tests/consumer (an
# out-of-tree plugin using find_package(bitcts) and bitcts::plugin_sdk) against it, and checks
# that the plugin uses every name the installed SDK headers declare.
file(REMOVE_RECURSE ${BITCTS_WORK})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BITCTS_BUILD_DIR} --prefix ${BITCTS_WORK}/stage
                COMMAND_ERROR_IS_FATAL ANY OUTPUT_QUIET)
execute_process(COMMAND ${CMAKE_COMMAND} -S ${BITCTS_CONSUMER_SOURCE} -B ${BITCTS_WORK}/build
                        -DCMAKE_PREFIX_PATH=${BITCTS_WORK}/stage
                COMMAND_ERROR_IS_FATAL ANY)
execute_process(COMMAND ${CMAKE_COMMAND} --build ${BITCTS_WORK}/build COMMAND_ERROR_IS_FATAL ANY)
file(GLOB_RECURSE _plugin ${BITCTS_WORK}/build/*consumer*.so)
if(NOT _plugin)
  message(FATAL_ERROR "the consumer plugin was not built")
endif()
message(STATUS "built ${_plugin} against the installed bitcts package")
execute_process(COMMAND ${BITCTS_PYTHON} ${BITCTS_CONSUMER_SOURCE}/sdk_names.py
                        ${BITCTS_WORK}/stage/include ${BITCTS_CONSUMER_SOURCE}/consumer_plugin.c
                COMMAND_ERROR_IS_FATAL ANY)
