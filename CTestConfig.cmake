# SPDX-License-Identifier: MIT
# CDash settings for `ctest -D Nightly` and tools/dashboard.cmake. The submit URL is a
# placeholder for the project's CDash instance: set BITCTS_CDASH_URL to submit elsewhere.
set(CTEST_PROJECT_NAME "bitcts")
set(CTEST_NIGHTLY_START_TIME "01:00:00 UTC")
if(DEFINED ENV{BITCTS_CDASH_URL})
  set(CTEST_SUBMIT_URL "$ENV{BITCTS_CDASH_URL}")
else()
  set(CTEST_SUBMIT_URL "https://my.cdash.org/submit.php?project=bitcts")
endif()
set(CTEST_DROP_SITE_CDASH TRUE)
