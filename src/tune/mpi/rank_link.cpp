#include "src/tune/mpi/rank_link.hpp"

#include <unistd.h>

#include <cstdio>
#include <thread>

namespace cudaburg::tune::mpi {

namespace {

// How long MPI_Finalize may take before the process ends without it.
constexpr auto kFinalizePatience = std::chrono::seconds(15);

std::string mpiErrorText(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  return std::string(text, length);
}

}  // namespace

RankLink::RankLink() {
  int provided = 0;
  if (int rc = MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided); rc != MPI_SUCCESS) {
    error_ = "MPI did not start: " + mpiErrorText(rc);
    return;
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  started_ = true;
}

RankLink::~RankLink() {
  if (!started_) return;
  for (Sending& s : sending_) {
    MPI_Cancel(&s.request);
    MPI_Request_free(&s.request);
  }
  std::thread([status = exitStatus_] {
    std::this_thread::sleep_for(kFinalizePatience);
    std::fflush(nullptr);
    _exit(status);
  }).detach();
  MPI_Finalize();
}

std::string RankLink::host() const {
  char name[MPI_MAX_PROCESSOR_NAME];
  int length = 0;
  MPI_Get_processor_name(name, &length);
  return std::string(name, length);
}

void RankLink::send(int to, Kind kind, const std::vector<std::string>& parts) {
  Sending& s = sending_.emplace_back(Sending{to, frame(parts), MPI_REQUEST_NULL});
  if (MPI_Isend(s.bytes.data(), static_cast<int>(s.bytes.size()), MPI_BYTE, to, static_cast<int>(kind), MPI_COMM_WORLD,
                &s.request) != MPI_SUCCESS)
    sending_.pop_back();  // a rank that cannot be reached is found out by its silence
  reap();
}

void RankLink::reap() {
  for (auto s = sending_.begin(); s != sending_.end();) {
    int done = 0;
    if (MPI_Test(&s->request, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS || done)
      s = sending_.erase(s);
    else
      ++s;
  }
}

std::optional<Received> RankLink::poll(std::chrono::milliseconds patience) {
  reap();
  int arrived = 0;
  MPI_Message handle;
  MPI_Status status;
  if (MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &arrived, &handle, &status) != MPI_SUCCESS || !arrived)
    return std::nullopt;
  Received r;
  r.from = status.MPI_SOURCE;
  int count = 0;
  MPI_Get_count(&status, MPI_BYTE, &count);
  std::string bytes(count, '\0');
  MPI_Request request;
  if (MPI_Imrecv(bytes.data(), count, MPI_BYTE, &handle, &request) != MPI_SUCCESS) return r;
  auto deadline = std::chrono::steady_clock::now() + patience;
  for (;;) {
    int done = 0;
    if (MPI_Test(&request, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) return r;
    if (done) break;
    if (std::chrono::steady_clock::now() > deadline) {
      MPI_Cancel(&request);
      MPI_Request_free(&request);
      return r;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  auto parts = unframe(bytes);
  if (parts && status.MPI_TAG >= static_cast<int>(Kind::Hello) && status.MPI_TAG <= static_cast<int>(Kind::Stop))
    r.message = Message{static_cast<Kind>(status.MPI_TAG), std::move(*parts)};
  return r;
}

void RankLink::forget(int rank) {
  for (auto s = sending_.begin(); s != sending_.end();) {
    if (s->to != rank) {
      ++s;
      continue;
    }
    MPI_Cancel(&s->request);
    MPI_Request_free(&s->request);
    s = sending_.erase(s);
  }
}

void RankLink::flush(std::chrono::milliseconds patience) {
  auto deadline = std::chrono::steady_clock::now() + patience;
  for (reap(); !sending_.empty() && std::chrono::steady_clock::now() < deadline; reap())
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

}  // namespace cudaburg::tune::mpi
