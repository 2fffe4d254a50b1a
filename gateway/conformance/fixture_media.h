// Tiny media payloads the conformance fixtures return (base64).
#pragma once

namespace labgate::gateway::conformance {

// A 1x1 red PNG.
inline constexpr const char kRedPixelPng[] =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC";

// One millisecond of silence: 8 kHz, mono, 16-bit PCM WAV.
inline constexpr const char kSilentWav[] =
    "UklGRjQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YRAAAAAAAAAAAAAAAAAAAAAAAAAA";

}  // namespace labgate::gateway::conformance
