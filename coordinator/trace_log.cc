#include "coordinator/trace_log.h"

namespace strads {

TraceLog::TraceLog(std::string header) : text_(std::move(header) + "\n") {}

void TraceLog::Continue(std::string text) {
  text_ = std::move(text);
  if (!text_.empty() && text_.back() != '\n') text_ += '\n';
  last_row_at_ = text_.size();
  last_updates_.reset();
}

void TraceLog::Add(uint64_t updates, const std::string& row) {
  if (last_updates_ == updates) {
    text_.resize(last_row_at_);
  } else {
    last_row_at_ = text_.size();
    last_updates_ = updates;
  }
  text_ += row;
  text_ += '\n';
}

}  // namespace strads
