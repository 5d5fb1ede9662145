// In-process transport: every node of an embedded cluster (or a test) shares one InProcHub.
//
// The hub maps node ids to mailboxes. InProcTransport registers its node's mailbox on
// construction and removes it on destruction, so sends to a node that has gone away fail with
// Unavailable, as with a dead peer over the network. The hub is thread-safe; each
// InProcTransport, like every Transport, is used by its owning event loop only (Send from other
// threads into the hub is safe; Receive is for the owner).
#pragma once

#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>

#include "common/transport.h"

namespace strads {

class InProcHub {
 public:
  InProcHub() = default;
  InProcHub(const InProcHub&) = delete;
  InProcHub& operator=(const InProcHub&) = delete;

  struct Mailbox {
    std::mutex mu;
    std::condition_variable cv;
    std::deque<proto::Envelope> queue;
    bool woken = false;  // by Wake, until a Receive returns for it
  };

  // Registers `id`; error if the id is taken.
  Result<std::shared_ptr<Mailbox>> Register(const std::string& id);
  void Unregister(const std::string& id);
  Status Deliver(const std::string& to, proto::Envelope envelope);
  // Ends the wait of `id`'s Receive now (or its next one) without a message, so that its event
  // loop looks at its stop flag at once, not a tick later. No-op for an unknown id.
  void Wake(const std::string& id);
  bool Has(const std::string& id) const;

 private:
  mutable std::mutex mu_;
  std::map<std::string, std::shared_ptr<Mailbox>> mailboxes_;
};

class InProcTransport : public Transport {
 public:
  // REQUIRES: `hub` outlives this transport and `id` is not registered yet (asserted).
  InProcTransport(InProcHub& hub, std::string id);
  ~InProcTransport() override;

  const std::string& id() const override { return id_; }
  Status Connect(const std::string& peer, const std::string& endpoint) override;
  Status Send(const std::string& peer, const proto::Envelope& envelope) override;
  Status SendOwned(const std::string& peer, proto::Envelope&& envelope) override;
  std::optional<proto::Envelope> Receive(std::chrono::milliseconds timeout) override;
  std::vector<std::string> endpoints() const override { return {"inproc://" + id_}; }

 private:
  InProcHub& hub_;
  std::string id_;
  std::shared_ptr<InProcHub::Mailbox> mailbox_;
};

}  // namespace strads
