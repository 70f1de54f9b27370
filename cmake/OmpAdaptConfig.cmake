# find_package(OmpAdapt) — ompadapt's CMake package, installed by scripts/install.sh into
# <prefix>/lib/cmake/OmpAdapt. Provides:
#   OmpAdapt::adaptive        INTERFACE target: compiles and links with -fopenmp and compiles
#                             with -fplugin=libompadapt.so (all an OpenMP program needs to
#                             become adaptive); with OMPADAPT_OFFLOAD_TARGETS (and
#                             OMPADAPT_OFFLOAD_ARCH) also -fopenmp-targets=... (--offload-arch=...)
#                             on compile and link
#   OmpAdapt::runtime         libompadapt_rt.so + ompadapt.h, for programs that link the
#                             runtime explicitly or call its C API by hand
#   OmpAdapt::runtime_static  libompadapt_rt.a (with its system libraries)
#   OMPADAPT_PLUGIN, OMPADAPT_PASS_PLUGIN   paths of the Clang plugin and the LLVM pass plugin
#   ompadapt_enable_auto(<target> [KINDS <kinds>] [REMARKS])
#                             zero-source-change mode for one target: links OmpAdapt::adaptive and
#                             makes every eligible target construct and host parallel region of its
#                             sources adaptive with <kinds> (default: `default`, the default kinds of
#                             each kind of construct), e.g. KINDS "cpu,gpu,thread_limit[64:256:64]";
#                             REMARKS: say why a construct is left as written
# Cache variable OMPADAPT_AUTO (e.g. -DOMPADAPT_AUTO=cpu,gpu, before find_package): the same for
# every target that links OmpAdapt::adaptive and does not set its own kinds. Empty (default):
# only the adaptation directives written in the sources adapt.
# Target property OMPADAPT_AUTO: a target's own kinds (what ompadapt_enable_auto sets).
# Cache variables OMPADAPT_OFFLOAD_TARGETS (e.g. nvptx64, x86_64-pc-linux-gnu for host offload)
# and OMPADAPT_OFFLOAD_ARCH (e.g. sm_90): offloading for every target linking
# OmpAdapt::adaptive; target properties of the same names: a target's own.
# The plugin only loads into the clang it was built for: Debian's clang-19.

get_filename_component(_ompadapt_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
set(OMPADAPT_PLUGIN "${_ompadapt_prefix}/lib/libompadapt.so")
set(OMPADAPT_PASS_PLUGIN "${_ompadapt_prefix}/lib/libompadapt_pass.so")
set(OMPADAPT_INCLUDE_DIR "${_ompadapt_prefix}/include")

foreach(_f "${OMPADAPT_PLUGIN}" "${OMPADAPT_PASS_PLUGIN}" "${_ompadapt_prefix}/lib/libompadapt_rt.so" "${OMPADAPT_INCLUDE_DIR}/ompadapt.h")
  if(NOT EXISTS "${_f}")
    set(OmpAdapt_FOUND FALSE)
    set(OmpAdapt_NOT_FOUND_MESSAGE "ompadapt installation under ${_ompadapt_prefix} is incomplete: ${_f} is missing")
    return()
  endif()
endforeach()

foreach(_lang C CXX)
  if(CMAKE_${_lang}_COMPILER_ID AND NOT (CMAKE_${_lang}_COMPILER_ID MATCHES "Clang" AND CMAKE_${_lang}_COMPILER_VERSION VERSION_GREATER_EQUAL 19 AND CMAKE_${_lang}_COMPILER_VERSION VERSION_LESS 20))
    message(WARNING "ompadapt: libompadapt.so is a plugin for clang 19; the ${_lang} compiler is ${CMAKE_${_lang}_COMPILER_ID} ${CMAKE_${_lang}_COMPILER_VERSION} (use -DCMAKE_${_lang}_COMPILER=clang-19)")
  endif()
endforeach()

set(OMPADAPT_AUTO "" CACHE STRING "ompadapt: variant kinds of zero-source-change mode for every target linking OmpAdapt::adaptive (e.g. cpu,gpu, or default); empty: off")
set(OMPADAPT_OFFLOAD_TARGETS "" CACHE STRING "ompadapt: -fopenmp-targets of every target linking OmpAdapt::adaptive (e.g. nvptx64); empty: no offload")
set(OMPADAPT_OFFLOAD_ARCH "" CACHE STRING "ompadapt: --offload-arch of every target linking OmpAdapt::adaptive (e.g. sm_90)")

if(NOT TARGET OmpAdapt::adaptive)
  # The kinds: the consuming target's OMPADAPT_AUTO property, else the cache variable (commas
  # escaped: they separate generator-expression arguments).
  string(REPLACE "," "$<COMMA>" _ompadapt_auto_default "${OMPADAPT_AUTO}")
  set(_ompadapt_kinds "$<IF:$<BOOL:$<TARGET_PROPERTY:OMPADAPT_AUTO>>,$<TARGET_PROPERTY:OMPADAPT_AUTO>,${_ompadapt_auto_default}>")
  # offloading: the target's own property, else the cache variable
  set(_ompadapt_targets "$<IF:$<BOOL:$<TARGET_PROPERTY:OMPADAPT_OFFLOAD_TARGETS>>,$<TARGET_PROPERTY:OMPADAPT_OFFLOAD_TARGETS>,${OMPADAPT_OFFLOAD_TARGETS}>")
  set(_ompadapt_arch "$<IF:$<BOOL:$<TARGET_PROPERTY:OMPADAPT_OFFLOAD_ARCH>>,$<TARGET_PROPERTY:OMPADAPT_OFFLOAD_ARCH>,${OMPADAPT_OFFLOAD_ARCH}>")
  set(_ompadapt_offload "$<$<BOOL:${_ompadapt_targets}>:-fopenmp-targets=${_ompadapt_targets}>;$<$<BOOL:${_ompadapt_arch}>:--offload-arch=${_ompadapt_arch}>")
  add_library(OmpAdapt::adaptive INTERFACE IMPORTED)
  set_target_properties(OmpAdapt::adaptive PROPERTIES
    # region names spell files relative to the project's source directory: a moved or re-cloned
    # checkout keeps what it learned (CMake compiles sources by absolute paths)
    INTERFACE_COMPILE_OPTIONS "-fopenmp;${_ompadapt_offload};-fplugin=${OMPADAPT_PLUGIN};-fplugin-arg-ompadapt-source-root=${CMAKE_SOURCE_DIR};$<$<BOOL:${_ompadapt_kinds}>:-fplugin-arg-ompadapt-auto=${_ompadapt_kinds}>"
    # without -fopenmp the directives are silently ignored, and the link misses libomp; the
    # offload image is linked only when the link names the targets too
    INTERFACE_LINK_OPTIONS "-fopenmp;${_ompadapt_offload}")

  add_library(OmpAdapt::runtime SHARED IMPORTED)
  set_target_properties(OmpAdapt::runtime PROPERTIES
    IMPORTED_LOCATION "${_ompadapt_prefix}/lib/libompadapt_rt.so"
    INTERFACE_INCLUDE_DIRECTORIES "${OMPADAPT_INCLUDE_DIR}")

  add_library(OmpAdapt::runtime_static STATIC IMPORTED)
  set_target_properties(OmpAdapt::runtime_static PROPERTIES
    IMPORTED_LOCATION "${_ompadapt_prefix}/lib/libompadapt_rt.a"
    INTERFACE_INCLUDE_DIRECTORIES "${OMPADAPT_INCLUDE_DIR}"
    INTERFACE_LINK_LIBRARIES "pthread;dl;m")
endif()

function(ompadapt_enable_auto target)
  cmake_parse_arguments(PARSE_ARGV 1 _oa "REMARKS" "KINDS" "")
  if(_oa_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "ompadapt_enable_auto(${target}): unknown arguments ${_oa_UNPARSED_ARGUMENTS} (takes KINDS <kinds> and REMARKS)")
  endif()
  if(NOT _oa_KINDS)
    set(_oa_KINDS "default")
  endif()
  set_property(TARGET ${target} PROPERTY OMPADAPT_AUTO "${_oa_KINDS}")
  target_link_libraries(${target} PRIVATE OmpAdapt::adaptive)
  if(_oa_REMARKS)
    target_compile_options(${target} PRIVATE -fplugin-arg-ompadapt-remarks)
  endif()
endfunction()

set(OmpAdapt_FOUND TRUE)
