#include "common/inproc_transport.h"

#include <cassert>

namespace strads {

Result<std::shared_ptr<InProcHub::Mailbox>> InProcHub::Register(const std::string& id) {
  std::lock_guard lock(mu_);
  if (mailboxes_.count(id)) return Status::InvalidArgument("node id already in use: " + id);
  auto box = std::make_shared<Mailbox>();
  mailboxes_[id] = box;
  return box;
}

void InProcHub::Unregister(const std::string& id) {
  std::lock_guard lock(mu_);
  mailboxes_.erase(id);
}

bool InProcHub::Has(const std::string& id) const {
  std::lock_guard lock(mu_);
  return mailboxes_.count(id) > 0;
}

Status InProcHub::Deliver(const std::string& to, proto::Envelope envelope) {
  std::shared_ptr<Mailbox> box;
  {
    std::lock_guard lock(mu_);
    auto it = mailboxes_.find(to);
    if (it == mailboxes_.end()) return Status::Unavailable("no such node: " + to);
    box = it->second;
  }
  {
    std::lock_guard lock(box->mu);
    box->queue.push_back(std::move(envelope));
  }
  box->cv.notify_one();
  return Status::Ok();
}

void InProcHub::Wake(const std::string& id) {
  std::shared_ptr<Mailbox> box;
  {
    std::lock_guard lock(mu_);
    auto it = mailboxes_.find(id);
    if (it == mailboxes_.end()) return;
    box = it->second;
  }
  {
    std::lock_guard lock(box->mu);
    box->woken = true;
  }
  box->cv.notify_one();
}

InProcTransport::InProcTransport(InProcHub& hub, std::string id) : hub_(hub), id_(std::move(id)) {
  auto box = hub_.Register(id_);
  assert(box.ok());
  mailbox_ = std::move(box).value();
}

InProcTransport::~InProcTransport() { hub_.Unregister(id_); }

Status InProcTransport::Connect(const std::string& peer, const std::string& endpoint) {
  if (!hub_.Has(peer)) return Status::Unavailable("no such node: " + peer + " at " + endpoint);
  return Status::Ok();
}

Status InProcTransport::Send(const std::string& peer, const proto::Envelope& envelope) {
  return hub_.Deliver(peer, envelope);
}

Status InProcTransport::SendOwned(const std::string& peer, proto::Envelope&& envelope) {
  return hub_.Deliver(peer, std::move(envelope));
}

std::optional<proto::Envelope> InProcTransport::Receive(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mailbox_->mu);
  if (!mailbox_->cv.wait_for(lock, timeout,
                             [&] { return !mailbox_->queue.empty() || mailbox_->woken; }) ||
      mailbox_->queue.empty()) {
    mailbox_->woken = false;
    return std::nullopt;
  }
  proto::Envelope e = std::move(mailbox_->queue.front());
  mailbox_->queue.pop_front();
  return e;
}

}  // namespace strads
