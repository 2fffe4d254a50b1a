// The translation unit that compiles labgate's shared precompiled header
// (cmake/PrecompiledHeaders.cmake); it has no code of its own.
