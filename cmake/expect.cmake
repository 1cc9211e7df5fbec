# Runs a test's command and passes only if it exits with STATUS and its output
# (stdout and stderr, echoed as they come) matches PATTERN. CTest's
# PASS_REGULAR_EXPRESSION alone ignores the exit status, so a crash after the
# expected line would pass.
#   cmake -DSTATUS=<code> -DPATTERN=<regex> -P expect.cmake -- command args...
# (coconet_expect_command in CoCoNetHelpers.cmake builds this line.)
set(command)
set(dashes OFF)
math(EXPR last "${CMAKE_ARGC} - 1")
foreach (i RANGE ${last})
    if (dashes)
        # An argument holding ";" stays one argument, not a list.
        string(REPLACE ";" "\\;" arg "${CMAKE_ARGV${i}}")
        list(APPEND command "${arg}")
    elseif (CMAKE_ARGV${i} STREQUAL "--")
        set(dashes ON)
    endif ()
endforeach ()
if (NOT DEFINED STATUS OR NOT DEFINED PATTERN OR NOT command)
    message(FATAL_ERROR "expect.cmake: usage: cmake -DSTATUS=<code> -DPATTERN=<regex> "
                        "-P expect.cmake -- command args...")
endif ()
execute_process(COMMAND ${command} RESULT_VARIABLE status OUTPUT_VARIABLE output
                ERROR_VARIABLE output ECHO_OUTPUT_VARIABLE ECHO_ERROR_VARIABLE)
set(failures)
if (NOT status STREQUAL STATUS)
    list(APPEND failures "exit status ${status}, expected ${STATUS}")
endif ()
if (NOT output MATCHES "${PATTERN}")
    list(APPEND failures "no output matches '${PATTERN}'")
endif ()
if (failures)
    list(JOIN failures "; " failures)
    message(FATAL_ERROR "expect.cmake: ${failures}")
endif ()
message("expect.cmake: exit status ${status} and '${PATTERN}' found")
