// DynamicMemberJob: what a member's part of a dynamic-engine job knows whatever its role — the
// spec, the app, its rank, the job's numbers of schedulers and workers and where its data is — and
// how it takes a message, for DynamicWorkerJob (worker/) and DynamicSchedulerJob (scheduler/).
// Thread-compatibility: used by the member's event loop only.
#pragma once

#include <cstdint>

#include "common/dataset.h"
#include "common/status.h"
#include "engine/dynamic_app.h"
#include "engine/member_job.h"

namespace strads {

class DynamicMemberJob : public MemberJob {
 public:
  // Drops everything once the job has failed here. Gives ColumnCounts (the whole file's, summed by
  // the coordinator: the load starts from them) to HandleColumnCounts; drops the other kinds until
  // the job's data is loaded, then hands them to Handle().
  void OnMessage(const proto::Envelope& e) final;

 protected:
  DynamicMemberJob(const JobContext& context, const DynamicApp* app);

  virtual void HandleColumnCounts(const proto::Envelope& e) = 0;
  // Whether the job's data is loaded (until then only ColumnCounts is taken).
  virtual bool data_loaded() const = 0;
  // Any other message, once the data is loaded (one it has no use for is LogUnexpected).
  virtual void Handle(const proto::Envelope& e) = 0;

  const proto::JobSpec spec_;
  const DynamicApp* const app_;
  const uint32_t rank_;
  const uint32_t num_schedulers_;  // >= 1
  const uint32_t num_workers_;
  // The job's data as this member reads it: a file, or a matrix of the member's MemoryData
  // (MemberIdentity::memory_data); an error for a "memory:" path it does not hold.
  const Result<DataSource> source_;
};

}  // namespace strads
