# Writes a C++ source that holds the text of each contract file, so that the library (and
# the single gateway binary) carries its contracts wherever it runs.
# Usage: cmake -DOUTPUT=<file.cc> -DCONTRACTS_DIR=<dir> -P embed_contracts.cmake
file(GLOB contract_files LIST_DIRECTORIES false "${CONTRACTS_DIR}/*.json")
list(SORT contract_files)

set(delimiter "lgcontract")
set(body "")
foreach(contract_file IN LISTS contract_files)
  get_filename_component(name "${contract_file}" NAME)
  file(READ "${contract_file}" text)
  string(FIND "${text}" ")${delimiter}\"" clash)
  if(NOT clash EQUAL -1)
    message(FATAL_ERROR "${contract_file} contains the raw-string delimiter ${delimiter}")
  endif()
  string(APPEND body "      {\"${name}\", R\"${delimiter}(${text})${delimiter}\"},\n")
endforeach()

set(content "// Generated from actions-service/contracts/ by embed_contracts.cmake. Do not edit.
#include \"actions-service/contract_sources.h\"

namespace labgate::actions {

const std::vector<ContractSource>& EmbeddedContracts() {
  static const std::vector<ContractSource>* const kContracts = new std::vector<ContractSource>{
${body}  };
  return *kContracts;
}

}  // namespace labgate::actions
")

# Only touch the output when it changes, to avoid needless rebuilds.
if(EXISTS "${OUTPUT}")
  file(READ "${OUTPUT}" previous)
  if(previous STREQUAL content)
    return()
  endif()
endif()
file(WRITE "${OUTPUT}" "${content}")
