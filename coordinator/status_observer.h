// StatusObserver: what the coordinator tells an observer about the cluster (the dashboard's
// model, coordinator/dashboard_state.h): the status document, a few times a second and on every
// job state change.
// Thread-compatibility: called on the coordinator's event loop thread; an implementation that
// shares what it sees with other threads synchronizes itself.
#pragma once

#include "strads.pb.h"

namespace strads {

class StatusObserver {
 public:
  virtual ~StatusObserver() = default;
  // `status` is what a StatusRequest would be answered with at this moment.
  virtual void OnStatus(const proto::StatusReply& status) = 0;
};

}  // namespace strads
