# Project-wide warning flags, applied per target with amp_set_warnings(target): only the
# project's own code, never the libraries it includes.
#
# AMP_WERROR (default ON, what CI builds) turns every warning into an error, in g++ and in
# nvcc (its own diagnostics and the host compiler's). Two GCC 12 diagnostics stay warnings:
# -Wrestrict and -Wfree-nonheap-object fire inside inlined std::string / std::vector code
# that is correct (GCC bugs 105329 and 105651); they are still printed.
option(AMP_WERROR "Treat warnings in the project's own code as errors" ON)

set(AMP_CXX_WARNINGS -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers)
if(AMP_WERROR)
  list(APPEND AMP_CXX_WARNINGS -Werror)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    list(APPEND AMP_CXX_WARNINGS -Wno-error=restrict -Wno-error=free-nonheap-object)
  endif()
endif()
string(REPLACE ";" "," AMP_CUDA_HOST_WARNINGS "${AMP_CXX_WARNINGS}")

function(amp_set_warnings target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:${AMP_CXX_WARNINGS}>
    $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=${AMP_CUDA_HOST_WARNINGS}>)
  if(AMP_WERROR)
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:--Werror=all-warnings>)
  endif()
endfunction()
