# cmake -DGALLOP=... -DOUT_DIR=... -P write_docs.cmake: gallop(1) and the
# bash and zsh completions, as the gallop just built writes them from its own
# tables. Leak checks are off for this run: a sanitizer build would otherwise
# fail on libvips' start-up allocations.
set(ENV{ASAN_OPTIONS} "detect_leaks=0")
foreach(doc "man;gallop.1" "completion;bash;gallop.bash" "completion;zsh;_gallop")
  list(POP_BACK doc file)
  execute_process(COMMAND ${GALLOP} ${doc} OUTPUT_FILE ${OUT_DIR}/${file}
    RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "gallop ${doc} failed (${status})")
  endif()
endforeach()
