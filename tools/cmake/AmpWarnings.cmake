# Project-wide warning flags, applied per target with amp_set_warnings(target).
function(amp_set_warnings target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers>)
endfunction()
