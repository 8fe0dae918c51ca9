// Set-level audits of a split, computed independently of the validator:
// the demo prints them, and the figures show them for a faulty split.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "llm/text/corpus.hpp"

namespace ch02 {

/// The ids of each partition, in manifest order.
using SplitLists = std::array<std::vector<std::string>, 3>;

/// What a split covers and where it overlaps.
struct SplitAudit {
  std::vector<std::string> missing;  ///< corpus ids in no partition
  std::array<std::vector<std::string>, 3>
      overlaps;                           ///< train∩validation, train∩test, validation∩test
  std::vector<std::string> split_groups;  ///< provenance groups found in two partitions
  bool complete() const { return missing.empty(); }
  bool disjoint() const {
    return overlaps[0].empty() && overlaps[1].empty() && overlaps[2].empty();
  }
  bool provenance_intact() const { return split_groups.empty(); }
};

/// The ids of each partition of validated partitions.
SplitLists split_lists(const llm::CorpusPartitions& partitions);

/// Audits `lists` against `corpus` with plain set operations.
SplitAudit audit_split(const llm::Corpus& corpus, const SplitLists& lists);

}  // namespace ch02
