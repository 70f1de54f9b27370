//===- PassLoader.h - Registering the ompadapt pass with clang --*- C++ -*-===//
//
// -fplugin=libompadapt.so alone enables the pass (libompadapt_pass.so, beside
// the plugin): it is added to the compilation's pass plugins, and, for
// offloading compilations, run on the host module before its bitcode is
// written.
//
//===----------------------------------------------------------------------===//
#ifndef OMPADAPT_SHIM_PASSLOADER_H
#define OMPADAPT_SHIM_PASSLOADER_H

#include "clang/Frontend/CompilerInstance.h"

#include <string>

namespace ompadapt {

/// The directory this library was loaded from, with a trailing '/'; empty if
/// unknown.
std::string pluginDirectory();

/// Registers the pass in `PassLibrary` with the compilation `CI`; `Remarks`:
/// show the pass's optimisation remarks, as -Rpass=ompadapt,
/// -Rpass-missed=ompadapt and -Rpass-analysis=ompadapt would (host
/// compilations only: the pass leaves device modules alone). Returns whether
/// the pass will run on this compilation's host module (a host compilation
/// whose pipeline runs, whose library exists, that is not prepared for LTO:
/// an LTO link merges modules, and their precompiled code with them).
bool registerPass(clang::CompilerInstance &CI, const std::string &PassLibrary,
                  bool Remarks);

} // namespace ompadapt

#endif // OMPADAPT_SHIM_PASSLOADER_H
