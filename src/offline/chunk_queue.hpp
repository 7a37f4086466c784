#pragma once
#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>

namespace halo {

// A blocking FIFO between the pipeline's threads. close() wakes everyone: pushes are refused
// and pops drain what is left, then return nothing. That is how an error or Ctrl-C in one
// stage stops the others. Never used on the audio callback.
template <typename Item>
class ChunkQueue {
 public:
  bool push(Item item) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (closed_) return false;
      items_.push_back(std::move(item));
    }
    ready_.notify_one();
    return true;
  }

  std::optional<Item> pop() {
    std::unique_lock<std::mutex> lock(mutex_);
    ready_.wait(lock, [&] { return closed_ || !items_.empty(); });
    if (items_.empty()) return std::nullopt;
    Item item = std::move(items_.front());
    items_.pop_front();
    return item;
  }

  void close() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      closed_ = true;
    }
    ready_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<Item> items_;
  bool closed_ = false;
};

}  // namespace halo
