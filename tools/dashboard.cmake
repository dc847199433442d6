# SPDX-License-Identifier: MIT
# A CDash dashboard run: configure, build and test a project, then submit when asked. By default
# the project is bitcts itself; with SOURCE_DIR it is a vendor's project that finds an installed
# bitcts (find_package(bitcts)) and adds its plugin's groups with bitcts_add_conformance_tests(),
# so nothing of bitcts is rebuilt (docs/ci/cdash.md).
#   ctest -S tools/dashboard.cmake [-DMODEL=Nightly|Experimental|Continuous]
#         [-DSOURCE_DIR=<project>] [-DBITCTS_PREFIX=<installed bitcts>] [-DBUILD_DIR=<dir>]
#         [-DCONFIGURE_OPTIONS=<-D...;...>] [-DGENERATOR=Ninja]
#         [-DLABELS=conformance] [-DEXCLUDE_LABELS=<regex>] [-DJOBS=2] [-DSUBMIT=ON]
# MODEL: the dashboard track (default Nightly). SOURCE_DIR: the project (default: bitcts's
# tree). BITCTS_PREFIX: where bitcts is installed, given to the configure as CMAKE_PREFIX_PATH.
# BUILD_DIR: the build folder (default <SOURCE_DIR>/build-dashboard); an existing one is
# reconfigured in place (its generator must be GENERATOR's). CONFIGURE_OPTIONS: more cache
# settings for the configure. LABELS, EXCLUDE_LABELS: ctest -L / -LE regexes (default: every
# test). SUBMIT: ON sends the configure, build and test results to the submit URL:
# BITCTS_CDASH_URL from the environment, else the project's CTestConfig.cmake (bitcts's names
# the project's CDash). Each conformance group's summary.md, junit.xml and report.json travel
# inside Test.xml as the test's attached files (the ATTACHED_FILES property that
# bitcts_add_conformance_tests() sets), so the submission carries the reports. OFF (the
# default) leaves everything in BUILD_DIR/Testing for a look, with no network needed.
cmake_minimum_required(VERSION 3.16)
if(DEFINED SOURCE_DIR)
  get_filename_component(CTEST_SOURCE_DIRECTORY "${SOURCE_DIR}" ABSOLUTE)
  if(NOT EXISTS "${CTEST_SOURCE_DIRECTORY}/CMakeLists.txt")
    message(FATAL_ERROR "dashboard: SOURCE_DIR ${SOURCE_DIR} holds no CMakeLists.txt")
  endif()
else()
  get_filename_component(CTEST_SOURCE_DIRECTORY "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)
endif()
if(NOT DEFINED BUILD_DIR)
  set(BUILD_DIR "${CTEST_SOURCE_DIRECTORY}/build-dashboard")
endif()
get_filename_component(CTEST_BINARY_DIRECTORY "${BUILD_DIR}" ABSOLUTE)
if(NOT DEFINED MODEL)
  set(MODEL Nightly)
endif()
if(NOT DEFINED JOBS)
  set(JOBS 2)
endif()
if(NOT DEFINED GENERATOR)
  set(GENERATOR Ninja)
endif()
set(configure_options "-DCMAKE_BUILD_TYPE=RelWithDebInfo" ${CONFIGURE_OPTIONS})
if(DEFINED BITCTS_PREFIX)
  if(NOT EXISTS "${BITCTS_PREFIX}")
    message(FATAL_ERROR "dashboard: BITCTS_PREFIX ${BITCTS_PREFIX} does not exist")
  endif()
  get_filename_component(prefix "${BITCTS_PREFIX}" ABSOLUTE)
  list(APPEND configure_options "-DCMAKE_PREFIX_PATH=${prefix}")
endif()
site_name(CTEST_SITE)
if(NOT DEFINED CTEST_BUILD_NAME)
  set(CTEST_BUILD_NAME "${CMAKE_SYSTEM_NAME}-${CMAKE_SYSTEM_PROCESSOR}-RelWithDebInfo")
endif()
set(CTEST_CMAKE_GENERATOR "${GENERATOR}")
set(CTEST_BUILD_FLAGS "-j${JOBS}")
set(CTEST_CONFIGURATION_TYPE RelWithDebInfo)

ctest_start(${MODEL}) # reads the project's CTestConfig.cmake, where it has one
if(DEFINED ENV{BITCTS_CDASH_URL})
  set(CTEST_SUBMIT_URL "$ENV{BITCTS_CDASH_URL}")
endif()
if(SUBMIT AND NOT CTEST_SUBMIT_URL)
  message(FATAL_ERROR "dashboard: SUBMIT is on but no submit URL is set (BITCTS_CDASH_URL, or "
                      "CTEST_SUBMIT_URL in the project's CTestConfig.cmake)")
endif()
ctest_configure(OPTIONS "${configure_options}" RETURN_VALUE configure_rc)
if(NOT configure_rc EQUAL 0)
  message(FATAL_ERROR "dashboard: configure failed (${configure_rc})")
endif()
ctest_build(RETURN_VALUE build_rc NUMBER_ERRORS build_errors)
set(test_args PARALLEL_LEVEL ${JOBS} RETURN_VALUE test_rc)
if(DEFINED LABELS)
  list(APPEND test_args INCLUDE_LABEL "${LABELS}")
endif()
if(DEFINED EXCLUDE_LABELS)
  list(APPEND test_args EXCLUDE_LABEL "${EXCLUDE_LABELS}")
endif()
ctest_test(${test_args})
if(SUBMIT)
  ctest_submit(RETURN_VALUE submit_rc)
  if(NOT submit_rc EQUAL 0)
    message(WARNING "dashboard: submission failed (${submit_rc})")
  endif()
endif()
if(NOT build_rc EQUAL 0 OR build_errors GREATER 0 OR NOT test_rc EQUAL 0)
  message(FATAL_ERROR "dashboard: build ${build_rc} (${build_errors} errors), tests ${test_rc}")
endif()
