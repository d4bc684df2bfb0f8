#pragma once
// The embedded engine takes and makes core/model's types (what the Python engine makes too):
// core/torch names them as its own.

#include "core/model/accuracy.h"
#include "core/model/flops.h"
#include "core/model/inputshint.h"
#include "core/model/inputspec.h"
#include "core/model/knee.h"
#include "core/model/latency.h"
#include "core/model/layerprofile.h"
#include "core/model/modelinfo.h"
#include "core/model/profileevents.h"
#include "core/model/sweep.h"
#include "core/model/variant.h"

namespace pyrometer::torch {

using model::BatchDim;
using model::CompareOptions;
using model::CompareReport;
using model::DataFiles;
using model::DType;
using model::FlopsReport;
using model::InputSpec;
using model::kEvaluationBatch;
using model::kGiveInputsHint;
using model::LatencyReport;
using model::LayerSparsity;
using model::MemoryEvent;
using model::ModelInfo;
using model::ModuleInfo;
using model::OpArg;
using model::opCost;
using model::OpRecord;
using model::ProfiledOp;
using model::ProfileReport;
using model::RecordedProfile;
using model::RunMode;
using model::RunOptions;
using model::SweepCallback;
using model::SweepOptions;
using model::SweepPoint;
using model::SweepReport;
using model::SweepSummary;
using model::ThroughputPoint;
using model::Variant;
using model::VariantCallback;
using model::VariantKind;
using model::VariantResult;

using model::batchedInputs;
using model::batchSizeOf;
using model::findKnee;
using model::formatInputSpecs;
using model::latencyStats;
using model::parseInputSpecs;
using model::summarizeFlops;
using model::summarizeProfile;
using model::top1Agreement;
using model::variantName;
using model::withBatch;

} // namespace pyrometer::torch
