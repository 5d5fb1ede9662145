// The CLI's conversation with a coordinator over any Transport (ZeroMQ to a daemon, or the
// in-process hub of an embedded cluster): request/reply with a deadline, and waiting for a job
// with a progress line.
// Thread-compatibility: one thread.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "common/transport.h"

namespace strads {

// CLI exit codes (documented in the README).
enum ExitCode : int {
  kExitOk = 0,
  kExitJobFailed = 1,
  kExitUsage = 2,
  kExitUnreachable = 3,   // no coordinator, or it refused this client's key (or lack of one)
  kExitNotCancelled = 4,  // `strads cancel` of a job that had already ended
  kExitCancelled = 5,
  kExitStorage =
      6,  // a disk error: the coordinator cannot write its work dir, or the CLI its output
  kExitInterrupted = 130,
};

class Client {
 public:
  // `control` is the coordinator's peer id on `transport`; `status` the peer for the status
  // socket (may equal `control`).
  Client(Transport& transport, std::string control, std::string status,
         std::chrono::milliseconds timeout = std::chrono::milliseconds(5000));

  // Sends `request` (sender and version stamped here) to the control peer and returns the reply
  // (an ErrorReply becomes InvalidArgument with its message). Unavailable when no reply came
  // within the timeout.
  Result<proto::Envelope> Call(proto::Envelope request, bool to_status = false);

  // The members and every job, read page by page (StatusRequest.first_job_id and
  // StatusReply.next_job_id) from the status peer (or the control peer), merged into one reply.
  Result<proto::StatusReply> FetchStatus(bool to_status = true);
  // Job `job_id` as the status peer reports it (a page of one job); NotFound if it has none.
  // With `subscribe`, the request also renews this client's Progress subscription.
  Result<proto::JobInfo> FetchJob(uint64_t job_id, bool subscribe = false);

  // Waits until job `job_id` ends, printing a progress line to stderr (round, objective,
  // updates/s), unless `quiet`: on a terminal one line redrawn in place, else (or with
  // `whole_lines`, for when other lines, such as log lines, share stderr) a line every 5 s.
  // Returns the final JobInfo, Unavailable if the coordinator stops answering, or Cancelled if
  // `interrupt` became true.
  Result<proto::JobInfo> Wait(uint64_t job_id, const std::atomic<bool>& interrupt, bool quiet,
                              bool whole_lines = false);

  // Follows job `job_id` on the progress stream until it ends, calling `on_update` on this thread
  // with its latest JobInfo at least every 200 ms while it runs (`on_update` may set `interrupt`).
  // Returns the final JobInfo (`on_update` has not seen it), Unavailable if the coordinator stops
  // answering, or Cancelled if `interrupt` became true (the job goes on: send a CancelJob).
  Result<proto::JobInfo> Follow(uint64_t job_id, const std::atomic<bool>& interrupt,
                                const std::function<void(const proto::JobInfo&)>& on_update);

  // Fetches the results of a finished job and writes its files into `dir` (created only if there
  // are files: a job that failed or was cancelled before it ran has none; one that ran has its
  // partial results, summary.json saying "partial": true). The names written go to `written`.
  Result<proto::JobInfo> FetchResults(uint64_t job_id, const std::string& dir,
                                      std::vector<std::string>* written = nullptr);
  // The same results in memory: the job and its files.
  Result<proto::ResultReply> FetchResultReply(uint64_t job_id);

 private:
  Transport& transport_;
  std::string control_;
  std::string status_;
  std::chrono::milliseconds timeout_;
};

// The exit code for a finished job's state.
int ExitCodeFor(const proto::JobInfo& info);

// One line describing a job, e.g. for the end of `submit --wait`.
std::string DescribeJob(const proto::JobInfo& info);

}  // namespace strads
