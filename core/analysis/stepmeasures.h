#pragma once

#include "core/analysis/job.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace pyrometer::analysis {

// What a job's ranks × steps heat map can show of each rank's step. Ranks of a synchronous job
// end their steps together, so step time hides a straggler; what it spends the step on shows it.
enum class StepMeasure { StepTime, Compute, ExposedCommunication, Wait };
inline constexpr std::array kStepMeasures{StepMeasure::StepTime, StepMeasure::Compute,
                                          StepMeasure::ExposedCommunication, StepMeasure::Wait};

// "step time", "compute", "exposed communication", "wait".
std::string_view stepMeasureName(StepMeasure measure);

// The measure of job.ranks[rank].steps[step] in ns: its CPU annotation's duration, the
// computation it launched, its communication no computation overlaps, or its time in
// collectives waiting for the last rank. Nullopt when there is no such step or the figure is
// unknown (exposed communication of an old rank summary; waits of a job not aligned).
std::optional<std::int64_t> stepMeasureNs(const JobFigures &job, std::size_t rank, std::size_t step,
                                          StepMeasure measure);

// How much the measure differs across ranks: the standard deviation over ranks of each rank's
// mean per step, as a share of the mean step time (0 with fewer than two ranks with steps).
// Against the step time rather than the measure's own mean, so that waits of a few
// microseconds that differ by 100 % do not outweigh compute that differs by 30 % of a step.
double stepMeasureSpread(const JobFigures &job, StepMeasure measure);

// The measure that differs most across ranks (stepMeasureSpread); step time when none differs.
StepMeasure mostVaryingMeasure(const JobFigures &job);

// N of "ProfilerStep#N"; -1 for any other name.
int profilerStepNumber(std::string_view name);

} // namespace pyrometer::analysis
