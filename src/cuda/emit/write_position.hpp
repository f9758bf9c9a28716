#pragma once
// Where in the kernel's structure the writer is: inside how many block-mapped loops, in the part
// of a producer pipeline (Kernel::wgmmaProducer) its producer warpgroup copies or the part its
// consumers run, and inside which pipelined strip (StripTail, kernel_writer.hpp) whose end the
// first prefetched loop of its work takes.
#include <functional>

namespace cudaburg::emit_internal {

struct StripTail;

class WritePosition {
 public:
  // `write` run inside one more block-mapped loop.
  void inBlockLoop(const std::function<void()>& write) {
    ++blockLoops_;
    write();
    --blockLoops_;
  }
  bool insideBlockLoop() const { return blockLoops_ > 0; }

  // `write` run as the producer warpgroup's copies; as the consumer warpgroups' part.
  void asProducerCopies(const std::function<void()>& write) {
    producerCopies_ = true;
    write();
    producerCopies_ = false;
  }
  void asConsumers(const std::function<void()>& write) {
    consumers_ = true;
    write();
    consumers_ = false;
  }
  bool producerCopies() const { return producerCopies_; }
  bool consumers() const { return consumers_; }

  // `write` run inside a strip whose end is `tail` (where not null); takeStripTail() gives it to
  // the work that writes it, once.
  void inStrip(const StripTail* tail, const std::function<void()>& write) {
    if (tail) stripTail_ = tail;
    write();
    stripTail_ = nullptr;
  }
  const StripTail* takeStripTail() {
    const StripTail* tail = stripTail_;
    stripTail_ = nullptr;
    return tail;
  }

 private:
  int blockLoops_ = 0;
  bool producerCopies_ = false;
  bool consumers_ = false;
  const StripTail* stripTail_ = nullptr;
};

}  // namespace cudaburg::emit_internal
