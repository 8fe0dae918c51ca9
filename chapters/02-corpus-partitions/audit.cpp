// Plain set audits of a split (chapter 2), independent of SplitManifest::partition.
#include "audit.hpp"

#include <algorithm>
#include <set>

namespace ch02 {

SplitLists split_lists(const llm::CorpusPartitions& partitions) {
  SplitLists lists;
  for (llm::Partition partition : llm::kPartitions) {
    lists[static_cast<std::size_t>(partition)] = partitions.document_ids(partition);
  }
  return lists;
}

namespace {

std::vector<std::string> intersection(const std::vector<std::string>& a,
                                      const std::vector<std::string>& b) {
  std::vector<std::string> shared;
  for (const std::string& id : a) {
    if (std::find(b.begin(), b.end(), id) != b.end()) shared.push_back(id);
  }
  return shared;
}

}  // namespace

// region: split-audit
SplitAudit audit_split(const llm::Corpus& corpus, const SplitLists& lists) {
  SplitAudit audit;
  std::set<std::string> listed;
  for (const auto& ids : lists) listed.insert(ids.begin(), ids.end());
  for (const llm::Document& document : corpus.documents()) {
    if (!listed.contains(document.id)) audit.missing.push_back(document.id);
  }
  audit.overlaps = {intersection(lists[0], lists[1]), intersection(lists[0], lists[2]),
                    intersection(lists[1], lists[2])};
  // A group is split when its documents appear in more than one partition.
  std::set<std::string> groups;
  for (const llm::Document& document : corpus.documents()) groups.insert(document.provenance_group);
  for (const std::string& group : groups) {
    std::size_t partitions_with_group = 0;
    for (const auto& ids : lists) {
      partitions_with_group += std::any_of(ids.begin(), ids.end(), [&](const std::string& id) {
        const llm::Document* document = corpus.document(id);
        return document != nullptr && document->provenance_group == group;
      });
    }
    if (partitions_with_group > 1) audit.split_groups.push_back(group);
  }
  return audit;
}
// endregion: split-audit

}  // namespace ch02
