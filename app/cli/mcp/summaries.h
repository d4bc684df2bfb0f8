#pragma once
// The short text beside a tool's structured result: the few figures that answer the question,
// read from the subcommand's JSON (no figure is formatted a second way: they are quoted as the
// JSON has them, rounded for reading).
#include <nlohmann/json.hpp>

#include <string>

namespace pyrometer::cli::mcp {

std::string summaryText(const std::string &tool, const nlohmann::json &result);

} // namespace pyrometer::cli::mcp
