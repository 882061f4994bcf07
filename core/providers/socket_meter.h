// How many bytes a TCP socket has received so far, from the kernel's count
// (TCP_INFO): what the HTTP client has not parsed yet included. The transport
// reads it while it waits for a reply's headers, which cpp-httplib reads
// without any bound (an endless header line, or endless header lines, grew
// the process by 140 MB a second).
#pragma once
#include <cstdint>
#include <optional>

namespace revline::providers {

// Empty when `socket` is not a TCP socket (closed since, or reused) or the
// kernel does not count it.
std::optional<std::uint64_t> bytesReceived(int socket);

}  // namespace revline::providers
