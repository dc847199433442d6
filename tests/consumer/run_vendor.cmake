# SPDX-License-Identifier: MIT
# The vendor's side of the installed package (tests/consumer/vendor): copies the prefix that
# consumer.find_package staged to another path (the package must not remember where it was
# installed), configures the vendor project against the copy, builds its plugins, and checks
#   0. the function's operators are those that bitcts list names;
#   1. the tests bitcts_add_conformance_tests() made: the installed bitcts::bitcts in the
#      moved prefix, the plugin's path, the labels, the attached report files;
#   2. `ctest -L conformance -LE selftest`: the vendor plugin's groups pass;
#   3. `ctest -L selftest`: the broken plugin's group fails, exit 3 fails, and with
#      SKIP_ON_ENVIRONMENT_FAILURE is "Not Run"; none of them passes;
#   4. tools/dashboard.cmake on the vendor project with SUBMIT off: Testing/*/Test.xml carries
#      each group's summary.md, junit.xml and report.json as attached files.
#   5. a mistake in the call (an unknown operator, TARGET and BACKEND, ...) stops the configure.
# Inputs: BITCTS_STAGE, BITCTS_SOURCE_DIR, BITCTS_WORK, BITCTS_OTHER_VARIANT, BITCTS_GENERATOR.
# json_list(<var> <json array>): the array's items as a CMake list.
function(json_list var array)
  string(JSON n LENGTH "${array}")
  math(EXPR n "${n} - 1")
  set(items)
  foreach(k RANGE ${n})
    string(JSON item GET "${array}" ${k})
    list(APPEND items "${item}")
  endforeach()
  set(${var} "${items}" PARENT_SCOPE)
endfunction()
# require(<text> <substring> <what>): stops with <what> and <text> unless <text> has it.
function(require text substring what)
  string(FIND "${text}" "${substring}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${what}: no '${substring}' in:\n${text}")
  endif()
endfunction()

file(REMOVE_RECURSE ${BITCTS_WORK})
set(prefix ${BITCTS_WORK}/moved-prefix)
set(build ${BITCTS_WORK}/build)
set(vendor ${BITCTS_SOURCE_DIR}/tests/consumer/vendor)
file(COPY ${BITCTS_STAGE}/ DESTINATION ${prefix} USE_SOURCE_PERMISSIONS)
execute_process(COMMAND ${CMAKE_COMMAND} -S ${vendor} -B ${build} -G ${BITCTS_GENERATOR}
                        -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_PREFIX_PATH=${prefix}
                        -DVENDOR_PLUGIN_SOURCE=${prefix}/share/bitcts/example/example_plugin.c
                        -DVENDOR_BROKEN_SOURCE=${BITCTS_SOURCE_DIR}/tests/plugins/broken_plugin.c
                        -DVENDOR_OTHER_VARIANT=${BITCTS_OTHER_VARIANT}
                OUTPUT_QUIET COMMAND_ERROR_IS_FATAL ANY)
execute_process(COMMAND ${CMAKE_COMMAND} --build ${build} OUTPUT_QUIET COMMAND_ERROR_IS_FATAL ANY)

# 0. The function's operator groups are the installed bitcts's operators, in the plan's order.
file(GLOB module ${prefix}/lib*/cmake/bitcts/BitctsConformance.cmake)
include(${module})
execute_process(COMMAND ${prefix}/bin/bitcts list --tier default OUTPUT_VARIABLE ids
                COMMAND_ERROR_IS_FATAL ANY)
string(REGEX MATCHALL "(^|\n)[a-z_]+\\." ops "${ids}")
string(REGEX REPLACE "[\n.]" "" ops "${ops}")
list(REMOVE_DUPLICATES ops)
if(NOT ops STREQUAL BITCTS_CONFORMANCE_OPERATORS)
  message(FATAL_ERROR "BITCTS_CONFORMANCE_OPERATORS is ${BITCTS_CONFORMANCE_OPERATORS}; "
                      "bitcts list has ${ops}")
endif()

# 1. What the function made, as CTest lists it.
execute_process(COMMAND ${CMAKE_CTEST_COMMAND} --show-only=json-v1 WORKING_DIRECTORY ${build}
                OUTPUT_VARIABLE json COMMAND_ERROR_IS_FATAL ANY)
string(JSON count LENGTH "${json}" tests)
set(want vendor.good.bit_and vendor.good.bit_not vendor.filtered.bit_count vendor.broken.bit_xor
    vendor.environment.bit_not vendor.environment_skip.bit_not)
set(names)
math(EXPR last "${count} - 1")
foreach(i RANGE ${last})
  string(JSON name GET "${json}" tests ${i} name)
  string(JSON command GET "${json}" tests ${i} command)
  string(JSON exe GET "${command}" 0)
  if(NOT exe STREQUAL "${prefix}/bin/bitcts")
    message(FATAL_ERROR "${name} runs ${exe}, not the moved prefix's bin/bitcts")
  endif()
  json_list(command "${command}")
  set(props "")
  string(JSON nprops LENGTH "${json}" tests ${i} properties)
  math(EXPR plast "${nprops} - 1")
  foreach(p RANGE ${plast})
    string(JSON pname GET "${json}" tests ${i} properties ${p} name)
    string(JSON pvalue GET "${json}" tests ${i} properties ${p} value)
    string(JSON ptype TYPE "${json}" tests ${i} properties ${p} value)
    if(ptype STREQUAL "ARRAY")
      json_list(pvalue "${pvalue}")
    endif()
    string(APPEND props "\n${pname}=${pvalue}\n")
  endforeach()
  string(REGEX REPLACE "^vendor\\.([a-z_]+)\\.([a-z_]+)$" "\\1/\\2" dir "${name}")
  set(reports "${build}/vendor/${dir}/summary.md;${build}/vendor/${dir}/junit.xml;")
  string(APPEND reports "${build}/vendor/${dir}/report.json")
  require("${props}" "\nLABELS=conformance;" "${name}: no label conformance")
  if(name MATCHES "^vendor\\.(good|broken)")
    string(REGEX REPLACE "^vendor\\.(good|broken).*" "vendor_\\1" plugin "${name}")
    string(REPLACE good plugin plugin "${plugin}")
    require("${command}" ";--backend;${build}/lib${plugin}.so;" "${name}: not its plugin")
    require("${props}" "\nATTACHED_FILES=${reports}\n" "${name}: ATTACHED_FILES")
  elseif(name MATCHES "^vendor\\.filtered")
    require("${props}" "\nATTACHED_FILES_ON_FAIL=${reports}\n" "${name}: ATTACHED_FILES_ON_FAIL")
    require("${command}" ";--filter;bit_count.uint16.*;--filter;bit_count.int8.*;"
            "${name}: FILTER is not one --filter '<op>.<glob>' each")
  elseif(props MATCHES "ATTACHED_FILES")
    message(FATAL_ERROR "${name}: ATTACH NONE attaches files:${props}")
  endif()
  if(name MATCHES "environment_skip")
    require("${props}" "\nSKIP_RETURN_CODE=3\n" "${name}: SKIP_RETURN_CODE")
  endif()
  list(APPEND names ${name})
endforeach()
if(NOT names STREQUAL want)
  message(FATAL_ERROR "the vendor project has the tests ${names}, not ${want}")
endif()

# 2. The vendor plugin's groups pass.
execute_process(COMMAND ${CMAKE_CTEST_COMMAND} -L conformance -LE selftest -j2
                WORKING_DIRECTORY ${build} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0 OR NOT out MATCHES "100% tests passed, 0 tests failed out of 3")
  message(FATAL_ERROR "ctest -L conformance on the vendor plugin: exit ${rc}\n${out}")
endif()
message(STATUS "the vendor plugin's 3 groups pass")

# 3. A wrong plugin and a failed environment never read as a pass.
execute_process(COMMAND ${CMAKE_CTEST_COMMAND} -L selftest -j2 --output-on-failure
                WORKING_DIRECTORY ${build} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
foreach(expect "vendor\\.broken\\.bit_xor [.]+\\*\\*\\*Failed"
               "vendor\\.environment\\.bit_not [.]+\\*\\*\\*Failed"
               "vendor\\.environment_skip\\.bit_not [.]+\\*\\*\\*Skipped"
               "x fail bit_xor: " "instance_create failed"
               "tests passed, 2 tests failed out of 3")
  if(rc EQUAL 0 OR NOT out MATCHES "${expect}")
    message(FATAL_ERROR "ctest -L selftest: exit ${rc}, no line like '${expect}':\n${out}")
  endif()
endforeach()
message(STATUS "a wrong plugin fails, exit 3 fails or is not run")

# 4. A dashboard run against the installed bitcts: the reports travel in Test.xml.
execute_process(COMMAND ${CMAKE_CTEST_COMMAND} -S ${BITCTS_SOURCE_DIR}/tools/dashboard.cmake
                        -DMODEL=Experimental -DSOURCE_DIR=${vendor} -DBUILD_DIR=${build}
                        -DGENERATOR=${BITCTS_GENERATOR}
                        -DBITCTS_PREFIX=${prefix} -DLABELS=conformance -DEXCLUDE_LABELS=selftest
                        -DSUBMIT=OFF
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
file(GLOB test_xml ${build}/Testing/*/Test.xml)
if(NOT rc EQUAL 0 OR NOT test_xml)
  message(FATAL_ERROR "dashboard: exit ${rc}, no Testing/*/Test.xml\n${out}")
endif()
file(READ ${test_xml} xml)
foreach(test vendor.good.bit_and vendor.good.bit_not vendor.filtered.bit_count)
  string(FIND "${xml}" "<Name>${test}</Name>" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${test_xml} has no test ${test}")
  endif()
  string(SUBSTRING "${xml}" ${at} -1 block)
  string(FIND "${block}" "</Test>" end)
  string(SUBSTRING "${block}" 0 ${end} block)
  foreach(file summary.md junit.xml report.json)
    set(attached "compression=\"tar/gzip\" filename=\"${file}\" type=\"file\">")
    string(FIND "${block}" "${attached}" at)
    if(test MATCHES "filtered" AND NOT at EQUAL -1)
      message(FATAL_ERROR "${test_xml}: ${test} passed and has ${file} (ATTACH ON_FAIL)")
    elseif(NOT test MATCHES "filtered" AND at EQUAL -1)
      message(FATAL_ERROR "${test_xml}: ${test} has no attached ${file}")
    endif()
  endforeach()
endforeach()
message(STATUS "Test.xml carries the attached reports")

# 5. Mistakes in the call stop the configure, each with a message naming it.
foreach(mistake "operator=unknown operator bit_nand"
                "both=give either TARGET (a plugin target) or BACKEND"
                "neither=give either TARGET (a plugin target) or BACKEND"
                "target=TARGET no_such_plugin is not a target"
                "attach=ATTACH SOMETIMES is not ALWAYS, ON_FAIL or NONE"
                "argument=unknown arguments: TIERS;smoke")
  string(REGEX REPLACE "=.*" "" name "${mistake}")
  string(REGEX REPLACE "^[a-z]+=" "" message "${mistake}")
  execute_process(COMMAND ${CMAKE_COMMAND} -S ${vendor} -B ${build} -DVENDOR_MISTAKE=${name}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  string(REGEX REPLACE "[ \n]+" " " out "${out}")
  string(FIND "${out}" "bitcts_add_conformance_tests: ${message}" at)
  if(rc EQUAL 0 OR at EQUAL -1)
    message(FATAL_ERROR "VENDOR_MISTAKE=${name}: exit ${rc}, no '${message}':\n${out}")
  endif()
endforeach()
message(STATUS "mistakes in the call are refused")
