//===- Progress.cpp - the progress bar of the tuning tools ----------------===//

#include "indexpool/Tuning/Progress.h"

#include <unistd.h>

namespace indexpool::tuning {

namespace {
constexpr int kBarWidth = 12;
} // namespace

Progress::Progress(int total, std::string label, bool quiet, std::FILE *out)
    : total(total), label(std::move(label)), quiet(quiet),
      tty(::isatty(::fileno(out))), out(out) {}

Progress::~Progress() {
  // The in-place line ends once the work stops, finished or not.
  if (!quiet && tty && done > 0)
    std::fputc('\n', out);
}

std::string Progress::line() const {
  int filled = total > 0 ? done * kBarWidth / total : kBarWidth;
  std::string text = "[" + std::string(size_t(filled), '#') +
                     std::string(size_t(kBarWidth - filled), '.') + "] " +
                     std::to_string(done) + "/" + std::to_string(total);
  if (best >= 0) {
    char buffer[96];
    std::snprintf(buffer, sizeof buffer, "  best %.4g ms (candidate %d, ",
                  bestMs, best);
    text += buffer + label + ")";
  }
  return text;
}

void Progress::step(int candidate, bool ok, double medianMs) {
  ++done;
  if (ok && (best < 0 || medianMs < bestMs)) {
    best = candidate;
    bestMs = medianMs;
  }
  draw();
}

void Progress::draw() {
  if (quiet)
    return;
  if (tty) {
    // Clear to the end of the line: a shorter line leaves no residue.
    std::fprintf(out, "\r%s\033[K", line().c_str());
    std::fflush(out);
    return;
  }
  // A log gets a line per tenth, and the last one.
  int decile = total > 0 ? done * 10 / total : 10;
  if (decile == lastDecile && done != total)
    return;
  lastDecile = decile;
  std::fprintf(out, "%s\n", line().c_str());
}

} // namespace indexpool::tuning
