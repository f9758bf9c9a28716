#pragma once
// This process's place among the ranks of an MPI job, and messages to and from the others that
// never wait without end: a send returns at once (MPI takes the bytes when it can), a poll
// answers with what has arrived or nothing, and a rank that is gone can be forgotten. Errors are
// returned, not fatal, so that a rank that dies does not take the others with it.
#include <chrono>
#include <list>
#include <optional>
#include <string>

#include <mpi.h>

#include "src/tune/mpi/message.hpp"

namespace cudaburg::tune::mpi {

struct Received {
  int from = -1;
  std::optional<Message> message;  // nullopt: it did not arrive whole, or is no message of ours
};

class RankLink {
 public:
  // MPI_Init_thread with one thread calling MPI (the others tune); MPI_Finalize on destruction,
  // which, should it not return (Open MPI can wait there for a rank that died), is cut short
  // after a while by ending the process with the exit status set.
  RankLink();
  ~RankLink();
  RankLink(const RankLink&) = delete;
  RankLink& operator=(const RankLink&) = delete;

  // False when MPI could not start (`error` says why); then nothing else may be called.
  bool started() const { return started_; }
  const std::string& error() const { return error_; }
  int rank() const { return rank_; }
  int size() const { return size_; }
  // The host this rank runs on, as MPI names it.
  std::string host() const;

  void send(int to, Kind kind, const std::vector<std::string>& parts = {});
  // A message that has arrived, from any rank; waits only for the rest of one already begun,
  // and at most `patience` for it.
  std::optional<Received> poll(std::chrono::milliseconds patience);
  // Gives up on what was sent to `rank`, which is gone.
  void forget(int rank);
  // Waits at most `patience` for every send still under way to be taken.
  void flush(std::chrono::milliseconds patience);
  void setExitStatus(int status) { exitStatus_ = status; }

 private:
  struct Sending {
    int to;
    std::string bytes;  // kept alive until MPI has sent them
    MPI_Request request;
  };
  void reap();  // drops the sends that are done
  bool started_ = false;
  std::string error_;
  int rank_ = 0, size_ = 1;
  int exitStatus_ = 0;
  std::list<Sending> sending_;
};

}  // namespace cudaburg::tune::mpi
