#pragma once

namespace halo {

// Whether this process has started a CUDA context (GpuDevice says so when it starts one).
// The command line reads it at the very end: a process that started CUDA ends with _exit once
// its work is done and its output committed, skipping the CUDA runtime's teardown at exit,
// which took 0.10-0.12 s after the last line on the H100 machine (bench/exit_probe.py), a
// quarter of a 10-minute file's run; the driver reclaims the context with the process.
void note_cuda_started() noexcept;
bool cuda_started() noexcept;

}  // namespace halo
