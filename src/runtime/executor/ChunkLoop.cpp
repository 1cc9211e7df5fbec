// The thread an overlap's producer runs on (ChunkLoop.h).
#include "executor/ChunkLoop.h"

#include <utility>

namespace coconet_rt {

ProducerThread::~ProducerThread() {
    if (thread_.joinable()) {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            stop_ = true;
        }
        changed_.notify_all();
        thread_.join();
    }
}

void ProducerThread::start(std::function<void()> task) {
    if (!thread_.joinable()) {
        thread_ = std::thread([this] { loop(); });
    }
    {
        std::lock_guard<std::mutex> lock(mutex_);
        task_ = std::move(task);
        busy_ = true;
    }
    changed_.notify_all();
}

void ProducerThread::wait(bool rethrow) {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [this] { return !busy_; });
    std::exception_ptr error = std::exchange(error_, nullptr);
    if (error && rethrow) {
        std::rethrow_exception(error);
    }
}

void ProducerThread::loop() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
        changed_.wait(lock, [this] { return busy_ || stop_; });
        if (!busy_) {
            return;
        }
        std::function<void()> task = std::move(task_);
        lock.unlock();
        std::exception_ptr error;
        try {
            task();
        } catch (...) {
            error = std::current_exception();
        }
        lock.lock();
        error_ = error;
        busy_ = false;
        changed_.notify_all();
    }
}

} // namespace coconet_rt
